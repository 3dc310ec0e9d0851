import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance } from "fastify";

// The stylesheet and script the pages link, served apart from the pages: no
// session lookup, CSRF token or template for a static file. Only the assets
// folder is served (the templates live elsewhere), with validators, so a
// browser revalidates after the short cache lifetime instead of downloading.

const ASSETS_DIR = fileURLToPath(new URL("./assets/", import.meta.url));

export async function dashboardAssets(scope: FastifyInstance): Promise<void> {
  scope.addHook("onRequest", async (_request, reply) => {
    reply.header("x-content-type-options", "nosniff");
  });
  // RFC 9239 names text/javascript; the static server's mime table still says application/javascript.
  scope.addHook("onSend", async (_request, reply) => {
    if (String(reply.getHeader("content-type")).startsWith("application/javascript")) {
      reply.header("content-type", "text/javascript; charset=utf-8");
    }
  });
  await scope.register(fastifyStatic, {
    root: ASSETS_DIR,
    maxAge: "5m",
    // Directory listings and index files are not assets.
    index: false,
    list: false,
    wildcard: true,
  });
}

/**
 * /favicon.ico at the root, where browsers and tools ask for it whatever the
 * page says; the pages link the SVG beside it in the assets folder.
 */
export async function dashboardFavicon(scope: FastifyInstance): Promise<void> {
  const icon = readFileSync(new URL("favicon.ico", `file://${ASSETS_DIR}`));
  scope.get("/favicon.ico", (_request, reply) =>
    reply
      .type("image/x-icon")
      .header("cache-control", "public, max-age=86400")
      .header("x-content-type-options", "nosniff")
      .send(icon),
  );
}
