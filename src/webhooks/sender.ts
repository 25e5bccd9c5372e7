// Sends one delivery: an HTTP POST that never follows redirects, gives up after
// the timeout, reads at most a small excerpt of the answer, and (outside
// development) connects only to addresses that passed the target check.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net, { type LookupFunction } from "node:net";
import {
  hostInterfaceAddresses,
  targetRefusal,
  type InterfaceAddresses,
  type TargetAllowance,
} from "./target-safety.ts";

export const RESPONSE_EXCERPT_CHARS = 1024;
/** Bytes read from a response before the connection is dropped. */
const MAX_RESPONSE_BYTES = 16 * 1024;

export interface SendRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateTargets: TargetAllowance;
  /** How host names are resolved before the check (the system resolver unless a test injects one). */
  lookup?: LookupAll;
  /** This host's own addresses (read at connect time unless a test injects a list). */
  interfaceAddresses?: InterfaceAddresses;
}

export interface SendResult {
  /** null on a network error or timeout. */
  responseStatus: number | null;
  responseExcerpt: string | null;
  durationMs: number;
  error: string | null;
  ok: boolean;
}

/** One signed attempt, sent: what the dispatcher records of it. */
export interface SentAttempt {
  signature: string;
  attemptedAt: Date;
  result: SendResult;
}

/** Every address of a host name, as `dns.lookup` with `all: true` gives them. */
export type LookupAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

const systemLookup: LookupAll = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/** Resolves like the system does, then refuses unsafe addresses: the check and the connection use the same address. */
function guardedLookup(
  resolve: LookupAll,
  interfaceAddresses: InterfaceAddresses,
  allowLoopback: boolean,
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, list) => {
      if (error) return callback(error, "", 0);
      const blocked = list
        .map((a) => ({ address: a.address, refusal: targetRefusal(a.address, interfaceAddresses, allowLoopback) }))
        .find((a) => a.refusal);
      if (blocked || list.length === 0) {
        const reason = blocked ? `${blocked.address}, ${blocked.refusal}` : "no address";
        return callback(
          Object.assign(new Error(`refused: ${hostname} resolves to ${reason}`), { code: "EUNSAFETARGET" }),
          "",
          0,
        );
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

export function sendDelivery(request: SendRequest): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  const url = new URL(request.url);
  const interfaceAddresses = request.interfaceAddresses ?? hostInterfaceAddresses;
  // A literal address is connected to without a lookup, so it is checked here.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const anyTarget = request.allowPrivateTargets === true;
  const allowLoopback = request.allowPrivateTargets === "loopback";
  const refusal = !anyTarget && net.isIP(literal) ? targetRefusal(literal, interfaceAddresses, allowLoopback) : null;
  if (refusal) {
    return Promise.resolve({
      responseStatus: null,
      responseExcerpt: null,
      error: `refused: ${literal} is ${refusal}`,
      durationMs: elapsed(),
      ok: false,
    });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, "durationMs" | "ok">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const ok = result.responseStatus !== null && result.responseStatus >= 200 && result.responseStatus < 300;
      resolve({ ...result, durationMs: elapsed(), ok });
    };
    const transport = url.protocol === "https:" ? https : http;
    const req = transport.request(url, {
      method: "POST",
      headers: {
        ...request.headers,
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(request.body),
      },
      lookup: anyTarget ? undefined : guardedLookup(request.lookup ?? systemLookup, interfaceAddresses, allowLoopback),
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
