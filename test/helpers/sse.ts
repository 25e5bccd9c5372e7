// Reading Server-Sent Events in tests: a parser of the wire format, and a supertest request that
// collects messages as they arrive and stops the app's streams once it has what it waits for (the
// response then ends as it does when the server stops, and is checked like any other).
import type { Response } from "supertest";
import type { TestApp } from "./app.ts";

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  /** The text of a comment line (`: keep-alive`), for a message made of comments only. */
  comment?: string;
}

/** The complete messages of `text` (blocks ended by a blank line), and what is left of it. */
export function parseSse(text: string): { messages: SseMessage[]; rest: string } {
  const blocks = text.split("\n\n");
  const rest = blocks.pop() ?? "";
  const messages = blocks.map((block) => {
    const message: SseMessage = {};
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "") message.comment = value;
      else if (field === "id") message.id = value;
      else if (field === "event") message.event = value;
      else if (field === "data") message.data = message.data === undefined ? value : `${message.data}\n${value}`;
      else if (field === "retry") message.retry = Number(value);
    }
    return message;
  });
  return { messages, rest };
}

type Parser = Parameters<ReturnType<ReturnType<typeof import("supertest")>["get"]>["parse"]>[0];

/**
 * A supertest parser for a request that may answer an event stream: the body as text (or JSON for
 * a problem), and once the first bytes of a stream came, every stream of `app` ends, as a server
 * stop ends them. Anything that calls the stream operation and waits for the response uses it.
 */
export function endingStreams(app: { closeStreams(): Promise<void> }): Parser {
  return (res, done) => {
    let all = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      all += chunk;
      if (String(res.headers["content-type"]).startsWith("text/event-stream")) void app.closeStreams();
    });
    res.on("end", () => done(null, String(res.headers["content-type"] ?? "").includes("json") ? JSON.parse(all) : all));
  };
}

/** The envelopes of a stream's event messages. */
export function envelopesOf(messages: SseMessage[]): { id: string; type: string; data: Record<string, unknown> }[] {
  return messages.filter((m) => m.data !== undefined).map((m) => JSON.parse(m.data!));
}

/**
 * GET `path` as a stream; once `until(messages)` holds, ends every stream of `app` (as a server
 * stop does). Answers the ended response and every message received.
 */
export async function readStream(
  t: Pick<TestApp, "http">,
  app: { closeStreams(): Promise<void> },
  path: string,
  headers: Record<string, string>,
  until: (messages: SseMessage[]) => boolean,
  onMessages: (messages: SseMessage[]) => void = () => undefined,
): Promise<{ response: Response; messages: SseMessage[] }> {
  const messages: SseMessage[] = [];
  const response = await t.http
    .get(path)
    .set(headers)
    .buffer(true)
    .parse((res, done) => {
      let pending = "";
      let all = "";
      let closing = false;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        all += chunk;
        const parsed = parseSse(pending + chunk);
        pending = parsed.rest;
        messages.push(...parsed.messages);
        if (parsed.messages.length) onMessages(messages);
        if (!closing && until(messages)) {
          closing = true;
          void app.closeStreams();
        }
      });
      res.on("end", () => {
        const json = String(res.headers["content-type"] ?? "").includes("json");
        done(null, json ? JSON.parse(all) : all);
      });
    });
  return { response, messages };
}
