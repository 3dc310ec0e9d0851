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
import { createDatabase } from "./store/database.ts";
import { migrateToLatest } from "./store/migrate.ts";
import { startSweeper } from "./store/sweeper.ts";
import { createUsageMeter } from "./usage/usage-meter.ts";

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
  try {
    await migrateToLatest(database.db);
    const adminAccess = await ensureAdminAccess(database.db, config, clock.now());
    const context: AppContext = {
      config,
      database,
      clock,
      log,
      keys: createKeyVerifier(database.db, undefined, clock),
      rateLimiter: config.redisUrl ? await openRedisRateLimiter(config.redisUrl) : createMemoryRateLimiter(),
      adminTokenHash: adminAccess.adminTokenHash,
      meter: createUsageMeter(database.db, clock, {
        intervalMs: config.usageFlushMs,
        onError: (error) => log.error({ err: error }, "usage counts could not be written"),
      }),
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
      meter: context.meter,
      budgetOf: (method) =>
        method === CallerContextService.method.startCall
          ? config.budgetMs.start
          : method === CallerContextService.method.endCall
            ? config.budgetMs.end
            : undefined,
    });
    const app = await createApp(context, interceptors);
    const url = await app.listen({ port: config.port, host: config.host });
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
        await sweeper.stop();
        await context.meter.close();
        await failedAuthLimiter.close();
        await context.rateLimiter.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

/** Loaded only when Redis is configured: the client library is about 11 MB of memory a single instance does not need. */
async function openRedisRateLimiter(url: string): Promise<RateLimiter> {
  const { createRedisRateLimiter } = await import("./guards/redis-rate-limiter.ts");
  return createRedisRateLimiter(url);
}
