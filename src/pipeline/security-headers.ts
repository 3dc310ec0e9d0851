import fastifyHelmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";

// The browser-facing pages (the dashboard, /docs) with helmet's headers:
// a content security policy that loads only this server's own files and lets
// no other site frame them, nosniff, no referrer, and HSTS when the page came
// over TLS (directly, or through a proxy TRUST_PROXY believes). The API
// answers JSON and gRPC to programs; it keeps its own few headers.

export type CspDirectives = Record<string, string[]>;

const BASE: CspDirectives = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

const HSTS = "max-age=31536000; includeSubDomains";

/** Registers helmet on `scope` (an encapsulated plugin), with `extra` directives over the base policy. */
export async function useSecurityHeaders(scope: FastifyInstance, extra: CspDirectives = {}): Promise<void> {
  await scope.register(fastifyHelmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: { ...BASE, ...extra } },
    frameguard: { action: "deny" },
    referrerPolicy: { policy: "no-referrer" },
    // Sent only over TLS: over plain HTTP a browser ignores it, and a local setup should not be pinned to HTTPS.
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
  });
  scope.addHook("onRequest", async (request, reply) => {
    if (request.protocol === "https") reply.header("strict-transport-security", HSTS);
  });
}
