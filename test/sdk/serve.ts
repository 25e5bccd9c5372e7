// Serves a test app on a free local port, for clients that need a real URL.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { TestApp } from "../helpers/app.ts";
import { createServer } from "../../src/app/server.ts";

export async function serve(t: TestApp): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server: Server = createServer(t.app.koa).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
