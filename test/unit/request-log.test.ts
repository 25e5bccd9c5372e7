// The request line (src/pipeline/request-log.ts) is written from the request's fields straight into
// the logger's destination: byte for byte the line pino writes for the same fields, with the same
// level rules, and through the request's child logger when one was made.
import { Writable } from "node:stream";
import { expect } from "chai";
import type { Context } from "koa";
import { createLogger, type Logger } from "../../src/kernel/logger.ts";
import { logRequest, requestFields, requestLog, type RequestState } from "../../src/pipeline/request-log.ts";

function capture(level: "info" | "warn" = "info"): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger(level, sink), lines };
}

function contextOf(log: Logger, state: Partial<RequestState>, path = "/api/v1/equivalencies/eq_1"): Context {
  return { state, method: "GET", path, baseLog: log } as unknown as Context;
}

/** The line as pino itself writes it for the same fields, and the one logRequest wrote. */
async function bothLines(state: Partial<RequestState>, path?: string): Promise<[string, string]> {
  const { log, lines } = capture();
  const ctx = contextOf(log, state, path);
  log.info({ ...requestFields(ctx), method: "GET", path: ctx.path, status: 404, durationMs: 1.3 }, "request");
  logRequest(ctx, log, 404, 1.3);
  await new Promise((resolve) => setImmediate(resolve));
  expect(lines).to.have.length(2);
  const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');
  return [withoutTime(lines[0]), withoutTime(lines[1])];
}

describe("request log line", () => {
  it("is pino's own line for the same fields, in the same order", async () => {
    const states: Partial<RequestState>[] = [
      { requestId: "req_01", serviceRequestId: "req_01", clientRequestId: null },
      {
        requestId: "client-id.1",
        serviceRequestId: "req_02",
        clientRequestId: "client-id.1",
        operationId: "getEquivalency",
        credential: { id: "key_01" },
      },
      {
        requestId: "req_03",
        serviceRequestId: "req_03",
        clientRequestId: null,
        credential: { id: 'ext:a"b\\c\u0001é' },
      },
    ];
    for (const state of states) {
      const [pino, direct] = await bothLines(state);
      expect(direct).to.equal(pino);
      expect(JSON.parse(direct)).to.include({
        msg: "request",
        status: 404,
        durationMs: 1.3,
        requestId: state.requestId,
      });
    }
    const [pino, direct] = await bothLines({ requestId: "req_04" }, '/api/v1/a"b\\c');
    expect(direct).to.equal(pino);
    expect(JSON.parse(direct).path).to.equal('/api/v1/a"b\\c');
  });

  it("goes through the request's child logger once something else made one", async () => {
    const { log, lines } = capture();
    const ctx = contextOf(log, { requestId: "req_05", serviceRequestId: "req_05", operationId: "listKeys" });
    requestLog(ctx).warn("something else");
    logRequest(ctx, log, 200, 2);
    await new Promise((resolve) => setImmediate(resolve));
    const line = JSON.parse(lines[1]);
    expect(line).to.include({
      msg: "request",
      requestId: "req_05",
      operationId: "listKeys",
      status: 200,
      durationMs: 2,
    });
    expect(Object.keys(line).filter((key) => key === "requestId")).to.have.length(1);
  });

  it("is not written when the level is above info", async () => {
    const { log, lines } = capture("warn");
    logRequest(contextOf(log, { requestId: "req_06" }), log, 200, 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).to.deep.equal([]);
  });
});
