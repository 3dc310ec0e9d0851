import type { DescService } from "@bufbuild/protobuf";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import type { FastifyInstance } from "fastify";
import { file_callercontext_v1_errors } from "../../gen/callercontext/v1/errors_pb.ts";
import { Health } from "../../gen/grpc/health/v1/health_pb.ts";
import { ServerReflection } from "../../gen/grpc/reflection/v1/reflection_pb.ts";
import { ServerReflection as ServerReflectionAlpha } from "../../gen/grpc/reflection/v1alpha/reflection_pb.ts";
import type { AppContext } from "../context.ts";
import { createGrpcHealthService } from "../rpc/grpc-health-service.ts";
import { createServerReflection } from "../rpc/server-reflection.ts";
import { withRequestScope } from "./connect-handler-scope.ts";
import { scopeOf } from "./request-pipeline.ts";

// gRPC's standard health and reflection services, for probes and tools. They
// hold no customer data, so they stay outside the API guards (no key, no rate
// limit, no quota), like GET /v1/health.

const WATCH_INTERVAL_MS = 1000;

export async function registerToolingServices(
  fastify: FastifyInstance,
  app: AppContext,
  apiServices: readonly DescService[],
): Promise<void> {
  const health = createGrpcHealthService({
    database: app.database,
    services: apiServices,
    // A database slower than a start's budget cannot serve a start.
    pingTimeoutMs: app.config.budgetMs.start,
    watchIntervalMs: WATCH_INTERVAL_MS,
  });
  // The error details' file is served too, so tools can decode them.
  const reflection = createServerReflection([...apiServices, Health], [file_callercontext_v1_errors]);
  await fastify.register(fastifyConnectPlugin, {
    readMaxBytes: app.config.bodyLimitBytes,
    // Open Watch and reflection streams end when the server closes.
    shutdownTimeoutMs: 0,
    // In the request pipeline like every other request: its scope, and its report when done.
    contextValues: (request) => scopeOf(request.raw).values,
    routes(router) {
      router.service(Health, health);
      router.service(ServerReflection, reflection.v1);
      router.service(ServerReflectionAlpha, reflection.v1alpha);
      router.handlers.splice(0, router.handlers.length, ...router.handlers.map(withRequestScope));
    },
  });
}
