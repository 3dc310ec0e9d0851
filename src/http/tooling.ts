import type { DescService } from "@bufbuild/protobuf";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { metricsObserver } from "../metrics/metrics-observer.ts";
import { registerMetricsRoute } from "../metrics/metrics-routes.ts";
import { registerApiDocs } from "./api-docs.ts";
import { onRequestDone } from "./request-observers.ts";
import { scopeOf } from "./request-pipeline.ts";
import { registerToolingServices } from "./tooling-services.ts";

/**
 * What platform tools use, none of it behind the API guards: gRPC health and
 * reflection, the OpenAPI document, and /metrics unless it has a port of its own.
 */
export async function registerTooling(
  fastify: FastifyInstance,
  app: AppContext,
  apiServices: readonly DescService[],
): Promise<void> {
  const { metrics } = app;
  if (metrics) onRequestDone(fastify, metricsObserver(metrics));
  await fastify.register(async (scope) => {
    // These requests are reported by their route template, as REST ones are.
    scope.addHook("onRequest", (request, _reply, done) => {
      scopeOf(request.raw).route = request.routeOptions.url;
      done();
    });
    registerApiDocs(scope);
    if (metrics && app.config.metricsPort === undefined) registerMetricsRoute(scope, metrics);
  });
  await registerToolingServices(fastify, app, apiServices);
}
