// The equivalency CSV, JSON and CTDL exports on PostgreSQL: one COPY of the rows the database renders
// (src/repositories/exports.ts equivalencyCopy), passed to the response as the bytes the driver
// receives, so the export's text never becomes a JavaScript string and the server's memory does
// not grow with the export's size (docs/benchmarks.md). The COPY holds one of the connections
// exports share (the gate of limits.ts) until the export ends, is abandoned or fails.
import type { Readable } from "node:stream";
import type { Environment } from "../types.ts";
import type { ExportsRepository, RenderedFormat } from "../../repositories/exports.ts";

export type Gate = <T>(task: () => Promise<T>) => Promise<T>;

export interface CopiedExport {
  chunks: AsyncIterable<Buffer | string>;
  /** Ends the COPY (a no-op once it has ended) and gives its connection back to the gate. */
  close(): void;
}

/**
 * The export's opening text, the COPY's bytes (less the first `skip`), its closing text; null where the database has no
 * COPY (the embedded database). The first bytes are awaited here, so a failing statement is
 * thrown before the response starts.
 */
export async function copiedExport(
  exports: Pick<ExportsRepository, "equivalencyCopy">,
  through: Gate,
  environment: Environment,
  format: RenderedFormat,
  text: { open: string; close: string; skip?: number },
): Promise<CopiedExport | null> {
  let leave!: () => void;
  const left = new Promise<void>((resolve) => {
    leave = resolve;
  });
  await new Promise<void>((admitted) => {
    void through(() => {
      admitted();
      return left;
    });
  });
  let copy: Readable | null = null;
  const close = () => {
    copy?.destroy();
    leave();
  };
  try {
    const opened = exports.equivalencyCopy(environment, format);
    if (!opened) {
      close();
      return null;
    }
    copy = await opened;
    const bytes = copy[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const first = await bytes.next();
    const chunks = (async function* () {
      yield text.open;
      // The COPY's first bytes that are not the export's (the first JSON element's comma).
      if (!first.done) yield first.value.subarray(text.skip ?? 0);
      for (let next = await bytes.next(); !next.done; next = await bytes.next()) yield next.value;
      yield text.close;
    })();
    return { chunks, close };
  } catch (error) {
    close();
    throw error;
  }
}
