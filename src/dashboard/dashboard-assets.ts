import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";

// The stylesheet and script the pages link, served apart from the pages: no
// session lookup, CSRF token or template for a static file.

const STYLESHEET = readFileSync(new URL("./views/dashboard.css", import.meta.url));
const COPY_SCRIPT = readFileSync(new URL("./views/copy.js", import.meta.url));

export async function dashboardAssets(scope: FastifyInstance): Promise<void> {
  scope.addHook("onRequest", async (_request, reply) => {
    reply.header("cache-control", "public, max-age=300").header("x-content-type-options", "nosniff");
  });
  scope.get("/dashboard.css", (_request, reply) => reply.type("text/css; charset=utf-8").send(STYLESHEET));
  scope.get("/copy.js", (_request, reply) => reply.type("text/javascript; charset=utf-8").send(COPY_SCRIPT));
}
