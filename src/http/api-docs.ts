import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";
import { useSecurityHeaders } from "../pipeline/security-headers.ts";

// The OpenAPI document generated from the proto (gen/openapi.json), and a
// reference page for people at /docs: Swagger UI from its npm package, so the
// page needs no network beyond this server.

const DOCUMENT = readFileSync(new URL("../../gen/openapi.json", import.meta.url), "utf8");
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
/** The only files of the package the page uses; the rest (its demo page among them) is not served. */
const ASSETS = new Set(["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"]);

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
  await fastify.register(fastifyStatic, {
    root: SWAGGER_UI,
    prefix: "/docs/",
    maxAge: "1d",
    index: false,
    list: false,
    allowedPath: (pathName) => ASSETS.has(pathName.replace(/^\//, "")),
  });
}
