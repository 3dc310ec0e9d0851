import type { FastifyInstance } from "fastify";
import pino from "pino";
import { CallerContextService } from "../gen/callercontext/v1/caller_context_pb.ts";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import { type Clock, systemClock } from "./domain/clock.ts";
import { type AdminAccess, ensureAdminAccess } from "./first-start.ts";
import { createGuardChain } from "./guards/guard-chain.ts";
import { createKeyVerifier } from "./guards/key-verifier.ts";
import { createMemoryRateLimiter, type RateLimiter } from "./guards/rate-limiter.ts";
import { createApp } from "./http/create-app.ts";
import { createMetrics } from "./metrics/metrics.ts";
import { metricsInterceptor } from "./metrics/metrics-interceptor.ts";
import { type MetricsServer, startMetricsServer } from "./metrics/metrics-routes.ts";
import { createDatabase } from "./store/database.ts";
import { migrateToLatest } from "./store/migrate.ts";
import { startSweeper } from "./store/sweeper.ts";

export interface ServerOptions {
  readonly clock?: Clock;
  /** Where log lines go; standard output when unset. */
  readonly logDestination?: pino.DestinationStream;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly context: AppContext;
  readonly adminAccess: AdminAccess;
  /** Where GET /metrics is served when METRICS_PORT is set. */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
}

/** config → database → schema → admin access → context → app → listening. */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const log = pino({ level: config.logLevel }, options.logDestination);
  const clock = options.clock ?? systemClock;
  // Loaded only when configured: tracing costs nothing when off.
  const tracing = config.tracing ? await openTracing(config.tracing) : undefined;
  const database = await createDatabase(config, { onQuery: tracing?.onQuery });
  try {
    await migrateToLatest(database.db);
    const adminAccess = await ensureAdminAccess(database.db, config, clock.now());
    const context: AppContext = {
      config,
      database,
      clock,
      log,
      keys: createKeyVerifier(database.db),
      rateLimiter: config.redisUrl ? await openRedisRateLimiter(config.redisUrl) : createMemoryRateLimiter(),
      adminTokenHash: adminAccess.adminTokenHash,
      metrics: config.metrics ? createMetrics(database) : undefined,
    };
    const failedAuthLimiter = createMemoryRateLimiter();
    const guards = createGuardChain({
      db: database.db,
      clock,
      log,
      keys: context.keys,
      rateLimiter: context.rateLimiter,
      failedAuthLimiter,
      monthlyAllowance: config.monthlyQuota,
      adminTokenHash: () => context.adminTokenHash,
      authFailuresPerMinute: config.authFailuresPerMinute,
      budgetOf: (method) =>
        method === CallerContextService.method.startCall
          ? config.budgetMs.start
          : method === CallerContextService.method.endCall
            ? config.budgetMs.end
            : undefined,
    });
    const { metrics } = context;
    const interceptors = [
      ...(tracing ? [tracing.interceptor] : []),
      ...(metrics ? [metricsInterceptor(metrics)] : []),
      ...guards,
    ];
    const app = await createApp(context, interceptors);
    const url = await app.listen({ port: config.port, host: config.host });
    const metricsServer: MetricsServer | undefined =
      config.metricsPort === undefined || metrics === undefined
        ? undefined
        : await startMetricsServer(metrics, config.host, config.metricsPort).catch(async (error) => {
            await app.close();
            throw error;
          });
    const sweeper = startSweeper(database.db, clock, {
      ...config.sweep,
      onError: (error) => log.error({ err: error }, "retention sweep failed"),
    });
    return {
      url,
      app,
      context,
      adminAccess,
      metricsUrl: metricsServer && `http://${config.host}:${metricsServer.port}`,
      async close() {
        await app.close();
        await metricsServer?.close();
        await sweeper.stop();
        await failedAuthLimiter.close();
        await context.rateLimiter.close();
        await database.close();
        await tracing?.shutdown();
      },
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

async function openTracing(options: NonNullable<Config["tracing"]>) {
  const { createTracing } = await import("./tracing/tracing.ts");
  return createTracing(options);
}

/** Loaded only when Redis is configured: the client library is about 11 MB of memory a single instance does not need. */
async function openRedisRateLimiter(url: string): Promise<RateLimiter> {
  const { createRedisRateLimiter } = await import("./guards/redis-rate-limiter.ts");
  return createRedisRateLimiter(url);
}
