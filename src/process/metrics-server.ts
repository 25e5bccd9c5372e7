// The small server that exposes /metrics in Prometheus's text format on a port
// of its own (SVC_METRICS_PORT), apart from the API: the API port is public, the
// metrics port is for the monitoring network (127.0.0.1 unless SVC_METRICS_HOST
// says otherwise) and, with SVC_METRICS_TOKEN, needs that bearer token too.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Config } from "../kernel/config.ts";
import type { Logger } from "../kernel/logger.ts";

export interface MetricsSource {
  contentType: string;
  metrics(): Promise<string>;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1] ?? "";
  const a = crypto.createHash("sha256").update(given).digest();
  const b = crypto.createHash("sha256").update(token).digest();
  return crypto.timingSafeEqual(a, b);
}

/** Serves GET /metrics (and nothing else) on the metrics port; resolves with the bound port once listening. */
export function startMetricsServer(
  settings: NonNullable<Config["metrics"]>,
  source: MetricsSource,
  log: Logger,
): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Only GET /metrics is served on this port.\n");
      return;
    }
    if (settings.token && !tokenMatches(req.headers.authorization, settings.token)) {
      res.writeHead(401, { "Content-Type": "text/plain", "WWW-Authenticate": 'Bearer realm="metrics"' });
      res.end("Send Authorization: Bearer <SVC_METRICS_TOKEN>.\n");
      return;
    }
    source.metrics().then(
      (text) =>
        res.writeHead(200, { "Content-Type": source.contentType }).end(req.method === "HEAD" ? undefined : text),
      (error) => {
        log.error({ err: error }, "collecting metrics failed");
        res.writeHead(500, { "Content-Type": "text/plain" }).end("Collecting metrics failed.\n");
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      const port = (server.address() as AddressInfo).port;
      log.info({ url: `http://${settings.host}:${port}/metrics`, token: Boolean(settings.token) }, "metrics listening");
      resolve({ server, port });
    });
  });
}
