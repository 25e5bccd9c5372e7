// A real webhook receiver on 127.0.0.1 for tests: records every request,
// verifies its signature against the secrets registered for its path, and
// misbehaves on request (500, hang, redirect, slow answer, huge body).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifySignature } from "../../src/webhooks/signing.ts";

export type Behavior = "ok" | "fail" | "hang" | "redirect" | "slow" | "huge";

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request arrived. */
  arrivedAt: number;
  /** The registered secrets of the path whose v1 value matched. */
  verifiedWith: string[];
}

export interface ReceiverOptions {
  /** The receiver's clock for the signature's timestamp tolerance (tests with an injected clock pass it). */
  clock?: () => Date;
  slowMs?: number;
}

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly happenings: string[] = [];
  private readonly behaviors = new Map<string, Behavior>();
  private readonly secrets = new Map<string, string[]>();
  private readonly server: http.Server;
  private readonly clock: () => Date;
  private readonly slowMs: number;
  private port = 0;

  private constructor(options: ReceiverOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.slowMs = options.slowMs ?? 200;
    this.server = http.createServer((request, response) => this.handle(request, response));
  }

  static async start(options: ReceiverOptions = {}): Promise<Receiver> {
    const receiver = new Receiver(options);
    await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** How requests to `path` are answered (default "ok": 200). */
  behave(path: string, behavior: Behavior): this {
    this.behaviors.set(path, behavior);
    return this;
  }

  /** Secrets requests to `path` must be signed with (any one of them). */
  expectSecrets(path: string, secrets: string[]): this {
    this.secrets.set(path, secrets);
    return this;
  }

  /**
   * What the receiver saw, in order: "arrived <path>" for each request, "closed <path>" when its
   * connection closed (answered, or dropped by the sender). Orders events without a clock.
   */
  happened(): readonly string[] {
    return this.happenings;
  }

  to(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Polls until the condition holds, failing after `timeoutMs`. */
  async waitFor(condition: () => boolean, timeoutMs = 10_000, what = "the receiver's condition"): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://localhost").pathname;
      const body = Buffer.concat(chunks).toString("utf8");
      const header = String(request.headers["x-svc-signature"] ?? "");
      const nowSeconds = Math.floor(this.clock().getTime() / 1000);
      const verifiedWith = (this.secrets.get(path) ?? []).filter((secret) =>
        verifySignature(body, header, secret, { nowSeconds }),
      );
      this.happenings.push(`arrived ${path}`);
      this.requests.push({
        path,
        headers: request.headers,
        body,
        arrivedAt: Date.now(),
        verifiedWith,
      });
      response.on("close", () => this.happenings.push(`closed ${path}`));
      this.answer(this.behaviors.get(path) ?? "ok", response);
    });
  }

  private answer(behavior: Behavior, response: http.ServerResponse): void {
    switch (behavior) {
      case "ok":
        return void response.writeHead(200, { "Content-Type": "application/json" }).end('{"received":true}');
      case "fail":
        return void response.writeHead(500, { "Content-Type": "text/plain" }).end("receiver is broken");
      case "hang":
        return; // never answers; close() drops the connection
      case "redirect":
        return void response.writeHead(302, { Location: this.url("/redirect-target") }).end();
      case "slow":
        return void setTimeout(() => response.writeHead(200).end("slow but fine"), this.slowMs);
      case "huge":
        response.writeHead(200, { "Content-Type": "text/plain" });
        return void response.end("x".repeat(5 * 1024 * 1024));
    }
  }
}
