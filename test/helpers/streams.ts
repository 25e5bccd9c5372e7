// Reading a stream to its end in tests: the text it gave, and the error that ended it, if any.
import type { Readable } from "node:stream";

export async function drain(stream: Readable): Promise<{ text: string; error: Error | null }> {
  let text = "";
  try {
    for await (const chunk of stream) text += chunk;
    return { text, error: null };
  } catch (error) {
    return { text, error: error as Error };
  }
}
