import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { useSecurityHeaders } from "./security-headers.ts";

// The OpenAPI document generated from the proto (gen/openapi.json), and a
// reference page for people at /docs: Swagger UI from its npm package, so the
// page needs no network beyond this server.

const DOCUMENT = readFileSync(new URL("../../gen/openapi.json", import.meta.url), "utf8");
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Caller Context API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/reference.js"></script>
</body>
</html>
`;

// A file of its own, not an inline script: the page's policy runs only this server's scripts.
const INIT = `SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#reference", deepLinking: true });\n`;

const assetCache: Record<string, Promise<Buffer>> = {};

export async function registerApiDocs(fastify: FastifyInstance): Promise<void> {
  fastify.get("/v1/openapi.json", (_request, reply) =>
    reply.header("content-type", "application/json; charset=utf-8").send(DOCUMENT),
  );
  await fastify.register(registerDocsPage);
}

async function registerDocsPage(fastify: FastifyInstance): Promise<void> {
  // Swagger UI sets inline styles and draws icons as data: images.
  await useSecurityHeaders(fastify, { styleSrc: ["'self'", "'unsafe-inline'"], imgSrc: ["'self'", "data:"] });
  fastify.get("/docs", (_request, reply) => reply.header("content-type", "text/html; charset=utf-8").send(PAGE));
  fastify.get("/docs/reference.js", (_request, reply) =>
    reply.header("content-type", "text/javascript; charset=utf-8").send(INIT),
  );
  fastify.get<{ Params: { asset: string } }>("/docs/:asset", async (request, reply) => {
    const type = ASSETS[request.params.asset];
    if (type === undefined) return reply.callNotFound();
    // Read once: the bundle is about 1 MB and never changes while the process runs.
    const cached = assetCache[request.params.asset] ?? readFile(join(SWAGGER_UI, request.params.asset));
    assetCache[request.params.asset] = cached;
    const content = await cached;
    return reply.header("content-type", type).header("cache-control", "public, max-age=86400").send(content);
  });
}
