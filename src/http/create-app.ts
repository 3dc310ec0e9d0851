import type http from "node:http";
import type { Interceptor } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { HealthService } from "../../gen/callercontext/v1/health_pb.ts";
import { IntegrationService } from "../../gen/callercontext/v1/integrations_pb.ts";
import type { AppContext } from "../context.ts";
import { dashboardAssets, dashboardFavicon } from "../dashboard/dashboard-assets.ts";
import { dashboardPlugin } from "../dashboard/dashboard-plugin.ts";
import { earlyRefusal } from "../guards/admission-guard.ts";
import { createMemoryRateLimiter } from "../guards/rate-limit.ts";
import { errorResponse, sendError } from "../pipeline/error-response.ts";
import { attachRequestObservers, createRequestObservers, enterMethod } from "../pipeline/request-scope.ts";
import { logUnexpected } from "../pipeline/unexpected-errors.ts";
import { requestLogObserver } from "../request-log/request-log.ts";
import { createAdminService } from "../rpc/admin-service.ts";
import { createCallerContextService } from "../rpc/caller-context-service.ts";
import { createCustomerService } from "../rpc/customer-service.ts";
import { createHealthService } from "../rpc/health-service.ts";
import { createIntegrationService } from "../rpc/integration-service.ts";
import { withRequestScope } from "./connect-handler-scope.ts";
import { createGrpcUnaryHandler } from "./grpc-unary.ts";
import { largeWebhookHandler } from "./large-webhook.ts";
import { createOnePortServer } from "./one-port-server.ts";
import { withReadableConnectJson } from "./readable-connect-json.ts";
import { accessLog, openRequest, requestIdOf, scopeOf } from "./request-pipeline.ts";
import { type RestService, registerRestRoutes } from "./rest-adapter.ts";
import { registerTooling } from "./tooling.ts";
import { withUnreadableAsInvalidArgument } from "./unreadable-request.ts";
import { answerUnrouted } from "./unrouted.ts";

export interface AppOptions {
  /**
   * "all" (the default): every service and the dashboard on one port. With a separate admin listener
   * (ADMIN_LISTEN), "public" leaves the admin API out and "admin" serves it alone (with health and reflection).
   */
  readonly serves?: "all" | "public" | "admin";
}

/**
 * The Fastify host: REST routes from the proto, plus Connect, gRPC-Web and
 * gRPC (h2c) for the same services, on one port, all through one chain.
 */
export async function createApp(
  app: AppContext,
  /** The chain every call passes, whatever its protocol (src/interceptor-chain.ts). */
  interceptors: Interceptor[],
  options: AppOptions = {},
): Promise<FastifyInstance> {
  const { config } = app;
  const serves = options.serves ?? "all";
  const observers = createRequestObservers((error) => app.log.error({ err: error }, "request observer failed"));
  observers.add(accessLog(app.log));
  observers.add(requestLogObserver(app.requestLog, app.clock));
  const admin: RestService = { service: AdminService, implementation: createAdminService(app) };
  const health: RestService = { service: HealthService, implementation: createHealthService(app) };
  const services: RestService[] =
    serves === "admin"
      ? [health, admin]
      : [
          { service: CallerContextService, implementation: createCallerContextService(app) },
          { service: CustomerService, implementation: createCustomerService(app) },
          health,
          ...(serves === "all" ? [admin] : []),
          { service: IntegrationService, implementation: createIntegrationService(app) },
        ];
  // The REST body limit holds for every protocol, before and after decompression.
  const readMaxBytes = config.bodyLimitBytes;
  // The admission control's immediate refusals are given before a body is read, over REST and plain gRPC.
  const refuseEarly = config.admission.early ? earlyRefusal(app.admission) : undefined;
  const grpcUnary = createGrpcUnaryHandler(services, interceptors, {
    readMaxBytes,
    log: app.log,
    observers,
    refuseEarly,
  });
  const fastify = Fastify({
    loggerInstance: app.log,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // While closing, requests that still arrive on open connections are served
    // (within the shutdown grace) rather than refused with a bare 503.
    return503OnClosing: false,
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers["x-request-id"]),
    // Whether X-Forwarded-For/-Proto are believed: the dashboard's client address and Secure cookies depend on it.
    trustProxy: config.trustProxy,
    serverFactory: (handler) =>
      createOnePortServer(handler, {
        firstByteTimeoutMs: 10_000,
        headersTimeoutMs: 10_000,
        requestTimeoutMs: config.requestTimeoutMs,
        keepAliveTimeoutMs: 72_000,
        maxHeaderSize: 16 * 1024,
        shutdownGraceMs: config.shutdownGraceMs,
        // The admin listener takes an operator's requests, not bursts of calls.
        listenSockets: serves === "admin" ? 1 : config.listenSockets,
        onListenerError: (error) => app.log.warn({ err: error }, "an extra listening socket could not listen"),
        h2Handler: grpcUnary,
      }) as unknown as http.Server,
  }) as unknown as FastifyInstance;

  attachRequestObservers(fastify, observers);
  fastify.addHook("onRequest", (request, reply, done) => {
    const scope = openRequest(observers, request.raw, reply.raw, {
      requestId: request.id,
      peer: request.ip,
      scheme: request.protocol,
    });
    // Every route's template (the dashboard's pages among them), so metrics and logs never see the raw path.
    if (request.routeOptions.url !== undefined) enterMethod(scope, { route: request.routeOptions.url });
    done();
  });
  fastify.setErrorHandler((error, request, reply) => {
    logUnexpected(request.log, error, { route: request.routeOptions.url });
    return sendError(reply, errorResponse(error));
  });
  fastify.setNotFoundHandler(answerUnrouted);

  await fastify.register(async (scope) =>
    registerRestRoutes(scope, services, interceptors, {
      bodyLimit: config.bodyLimitBytes,
      refuseEarly,
      largeBodies: largeWebhookHandler(app.webhooks),
    }),
  );
  if (serves !== "admin") {
    await fastify.register(dashboardAssets, { prefix: "/dashboard/assets" });
    await fastify.register(dashboardFavicon);
    await fastify.register(dashboardPlugin, { prefix: "/dashboard", app, attempts: createMemoryRateLimiter() });
  }
  await fastify.register(fastifyConnectPlugin, {
    interceptors,
    readMaxBytes,
    // Strict like the REST host: a misspelt field is refused, not silently dropped.
    jsonOptions: { ignoreUnknownFields: false },
    contextValues: (request) => scopeOf(request.raw).values,
    routes(router) {
      for (const { service, implementation } of services) router.service(service, implementation as never);
      router.handlers.splice(
        0,
        router.handlers.length,
        ...router.handlers.map((handler) =>
          withRequestScope(withUnreadableAsInvalidArgument(withReadableConnectJson(handler, readMaxBytes))),
        ),
      );
    },
  });
  await registerTooling(
    fastify,
    app,
    services.map(({ service }) => service),
  );
  return fastify;
}
