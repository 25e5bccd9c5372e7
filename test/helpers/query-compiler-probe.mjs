// Preloaded into a server process (`node --import`), it writes one line to standard error when the
// process imports Prisma's query compiler (a module of @prisma/client/runtime named query_compiler…),
// which Prisma does with its first query: test/e2e/query-compiler-on-first-use.test.ts reads it.
// Loaded again as the module-resolution hooks it registers, on their own thread.
import { register } from "node:module";
import { isMainThread, MessageChannel } from "node:worker_threads";

export const QUERY_COMPILER_LOADED = "query compiler loaded:";

let port;

export function initialize(data) {
  port = data.port;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes("/@prisma/client/runtime/query_compiler")) port.postMessage(resolved.url);
  return resolved;
}

// The server's main thread registers the hooks; their own thread and the embedded database's thread do not.
if (isMainThread) {
  const { port1, port2 } = new MessageChannel();
  port1.on("message", (url) => process.stderr.write(`${QUERY_COMPILER_LOADED} ${url}\n`));
  port1.unref();
  register(import.meta.url, { data: { port: port2 }, transferList: [port2] });
}
