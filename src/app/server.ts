// The HTTP server around the Koa app. Node's HTTP parser refuses some requests
// before Koa sees them — header fields larger than its limit (16 KiB in all by
// default), or bytes that are not HTTP — and would answer them with a bare status
// line; here they get a problem document like every other error.
import http from "node:http";
import type { Duplex } from "node:stream";
import type Koa from "koa";
import { MalformedRequestError, ProblemError } from "../kernel/errors.ts";
import { newId } from "../kernel/ids.ts";

export function createServer(koa: Koa): http.Server {
  const server = http.createServer(koa.callback());
  server.on("clientError", answerClientError);
  return server;
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node itself does: answer only while no response on this connection has begun.
  const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (error.code !== "ECONNRESET" && socket.writable && !inFlight?.headersSent) socket.write(responseFor(error));
  socket.destroy();
}

function responseFor(error: NodeJS.ErrnoException): string {
  // A request that took too long to arrive has nothing to answer about: Node's own reply.
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n";
  return problemResponse(problemFor(error));
}

function problemFor(error: NodeJS.ErrnoException): ProblemError {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return new ProblemError(
        "request-header-too-large",
        `The request line and header fields are larger than the ${http.maxHeaderSize} bytes the server accepts.`,
      );
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new ProblemError(
        "payload-too-large",
        "The chunk extensions of the request body are larger than the server accepts.",
      );
    default:
      return new MalformedRequestError("The request is not well-formed HTTP/1.1.");
  }
}

function problemResponse(problem: ProblemError): string {
  const requestId = newId("req");
  const body = JSON.stringify(problem.toProblem(requestId));
  return [
    `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status]}`,
    "Content-Type: application/problem+json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}
