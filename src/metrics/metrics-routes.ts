import http from "node:http";
import type { FastifyInstance } from "fastify";
import type { Metrics } from "./metrics.ts";

// GET /metrics, in Prometheus' text format: on the API's port, or on a port
// of its own (METRICS_PORT) so it can stay off the public network. Neither
// passes the API guards.

export function registerMetricsRoute(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.get("/metrics", async (_request, reply) =>
    reply.header("content-type", metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer(async (req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
      return;
    }
    const body = await metrics.registry.metrics();
    res.writeHead(200, { "content-type": metrics.registry.contentType }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
