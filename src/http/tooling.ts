import type { DescService } from "@bufbuild/protobuf";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { metricsObserver } from "../metrics/metrics-observer.ts";
import { enterMethod, onRequestDone } from "../pipeline/request-scope.ts";
import { registerApiDocs } from "./api-docs.ts";
import { scopeOf } from "./request-pipeline.ts";
import { registerToolingServices } from "./tooling-services.ts";

/**
 * What platform tools use, none of it behind the API guards: gRPC health and
 * reflection, the OpenAPI document and its page. /metrics has a listener of its own (metrics-routes.ts).
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
      enterMethod(scopeOf(request.raw), { route: request.routeOptions.url });
      done();
    });
    await registerApiDocs(scope);
  });
  await registerToolingServices(fastify, app, apiServices);
}
