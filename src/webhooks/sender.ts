// Sends one delivery: an HTTP POST that never follows redirects, gives up after
// the timeout, reads at most a small excerpt of the answer, and (outside
// development) connects only to addresses that passed the target check.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { isPrivateAddress } from "./target-safety.ts";

export const RESPONSE_EXCERPT_CHARS = 1024;
/** Bytes read from a response before the connection is dropped. */
const MAX_RESPONSE_BYTES = 16 * 1024;

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateTargets: boolean;
}

export interface SendResult {
  /** null on a network error or timeout. */
  responseStatus: number | null;
  responseExcerpt: string | null;
  durationMs: number;
  error: string | null;
  ok: boolean;
}

/** Resolves like the system does, then refuses private addresses: the check and the connection use the same address. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const list = addresses as dns.LookupAddress[];
    const blocked = list.find((a) => isPrivateAddress(a.address));
    if (blocked || list.length === 0) {
      return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${blocked?.address ?? "nothing"}`), { code: "EUNSAFETARGET" }), "", 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

export function sendDelivery(request: SendRequest): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, "durationMs" | "ok">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const ok = result.responseStatus !== null && result.responseStatus >= 200 && result.responseStatus < 300;
      resolve({ ...result, durationMs: elapsed(), ok });
    };
    const url = new URL(request.url);
    if (!request.allowPrivateTargets && isPrivateAddress(url.hostname.replace(/^\[|\]$/g, ""))) {
      return finish({ responseStatus: null, responseExcerpt: null, error: `refused: ${url.hostname} is a private address` });
    }
    const transport = url.protocol === "https:" ? https : http;
    const req = transport.request(url, {
      method: "POST",
      headers: { ...request.headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(request.body) },
      lookup: request.allowPrivateTargets ? undefined : guardedLookup,
      agent: false,
    });
    // The whole exchange, not just idle time, must fit in the timeout.
    const timer = setTimeout(() => {
      req.destroy();
      finish({ responseStatus: null, responseExcerpt: null, error: `timed out after ${request.timeoutMs} ms` });
    }, request.timeoutMs);
    req.on("error", (error) => finish({ responseStatus: null, responseExcerpt: null, error: error.message }));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish({
          responseStatus: res.statusCode ?? null,
          responseExcerpt: Buffer.concat(chunks).toString("utf8").slice(0, RESPONSE_EXCERPT_CHARS) || null,
          error: null,
        });
      res.on("data", (chunk: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) chunks.push(chunk.subarray(0, MAX_RESPONSE_BYTES - size));
        size += chunk.length;
        if (size >= MAX_RESPONSE_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on("end", done);
      res.on("error", done);
    });
    req.end(request.body);
  });
}
