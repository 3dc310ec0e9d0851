import type { DescService } from "@bufbuild/protobuf";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { registerMetricsRoute } from "../metrics/metrics-routes.ts";
import { registerApiDocs } from "./api-docs.ts";
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
  registerApiDocs(fastify);
  if (app.metrics && app.config.metricsPort === undefined) registerMetricsRoute(fastify, app.metrics);
  await registerToolingServices(fastify, app, apiServices);
}
