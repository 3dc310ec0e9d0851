import http from "node:http";
import { safeEqual } from "../integrations/webhook-credentials.ts";
import type { Metrics } from "../pipeline/metrics-registry.ts";

// GET /metrics, in Prometheus' text format, on a listener of its own and
// never on the API's port: by default on 127.0.0.1, for a scraper on the same
// host or a sidecar. Bound wider (METRICS_HOST), it can ask for a bearer token
// (METRICS_TOKEN). It passes none of the API guards.

export interface MetricsListen {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
}

export interface MetricsServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: Metrics, listen: MetricsListen): Promise<MetricsServer> {
  const server = http.createServer(async (req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
      return;
    }
    if (listen.token !== undefined && !safeEqual(req.headers.authorization ?? "", `Bearer ${listen.token}`)) {
      res.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" }).end("Unauthorized\n");
      return;
    }
    const body = await metrics.registry.metrics();
    res.writeHead(200, { "content-type": metrics.registry.contentType }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  const port = (server.address() as { port: number }).port;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return {
    port,
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
