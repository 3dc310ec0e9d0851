import type { FastifyInstance } from "fastify";
import pino from "pino";
import { CallerContextService } from "../gen/callercontext/v1/caller_context_pb.ts";
import { HealthService } from "../gen/callercontext/v1/health_pb.ts";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import { type Clock, systemClock } from "./domain/clock.ts";
import { type AdminAccess, ensureAdminAccess } from "./first-start.ts";
import { createAdmissionControl } from "./guards/admission.ts";
import { createGuardChain } from "./guards/guard-chain.ts";
import { createKeyVerifier } from "./guards/key-verifier.ts";
import { type ProcessPressure, watchProcessPressure } from "./guards/process-pressure.ts";
import { createMemoryRateLimiter, type RateLimiter } from "./guards/rate-limiter.ts";
import { reportShedding } from "./guards/shedding-report.ts";
import { createApp } from "./http/create-app.ts";
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
  close(): Promise<void>;
}

/** config → database → schema → admin access → context → app → listening. */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const log = pino({ level: config.logLevel }, options.logDestination);
  const clock = options.clock ?? systemClock;
  const database = await createDatabase(config);
  let pressure: ProcessPressure | undefined;
  try {
    await migrateToLatest(database.db);
    // Watched from here: opening and migrating the embedded database holds the event loop on purpose.
    pressure = watchProcessPressure(config.admission);
    const admission = createAdmissionControl({ ...config.admission, pressure: pressure.reason });
    const adminAccess = await ensureAdminAccess(database.db, config, clock.now());
    const context: AppContext = {
      config,
      database,
      clock,
      log,
      keys: createKeyVerifier(database.db),
      rateLimiter: config.redisUrl ? await openRedisRateLimiter(config.redisUrl) : createMemoryRateLimiter(),
      adminTokenHash: adminAccess.adminTokenHash,
      admission,
    };
    const failedAuthLimiter = createMemoryRateLimiter();
    const interceptors = createGuardChain({
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
      admission,
      // Health is never shed: a load balancer must still hear that the instance is degraded.
      admits: (method) => method.parent !== HealthService,
    });
    const app = await createApp(context, interceptors);
    const url = await app.listen({ port: config.port, host: config.host });
    const stopReport = reportShedding(admission, log);
    const sweeper = startSweeper(database.db, clock, {
      ...config.sweep,
      onError: (error) => log.error({ err: error }, "retention sweep failed"),
    });
    return {
      url,
      app,
      context,
      adminAccess,
      async close() {
        await app.close();
        stopReport();
        pressure?.stop();
        await sweeper.stop();
        await failedAuthLimiter.close();
        await context.rateLimiter.close();
        await database.close();
      },
    };
  } catch (error) {
    pressure?.stop();
    await database.close().catch(() => {});
    throw error;
  }
}

/** Loaded only when Redis is configured: the client library is about 11 MB of memory a single instance does not need. */
async function openRedisRateLimiter(url: string): Promise<RateLimiter> {
  const { createRedisRateLimiter } = await import("./guards/redis-rate-limiter.ts");
  return createRedisRateLimiter(url);
}
