import type { FastifyInstance } from "fastify";
import pino from "pino";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import { forgetMePepper } from "./customers/forget-me-pepper.ts";
import { type Clock, systemClock } from "./domain/clock.ts";
import { createForgetMeHasher } from "./domain/forget-me.ts";
import { type DeliveryWorker, startDeliveryWorker } from "./events/delivery-worker.ts";
import { type AdminAccess, ensureAdminAccess } from "./first-start.ts";
import { createAdmissionControl } from "./guards/admission.ts";
import { createCreditsLowWatch } from "./guards/credits-low-watch.ts";
import { createKeyVerifier } from "./guards/key-verifier.ts";
import { type ProcessPressure, watchProcessPressure } from "./guards/process-pressure.ts";
import { createMemoryRateLimiter, type RateLimiter } from "./guards/rate-limiter.ts";
import { reportShedding } from "./guards/shedding-report.ts";
import { createWebhookVerifier } from "./guards/webhook-verifier.ts";
import { createApp } from "./http/create-app.ts";
import { createInterceptorChain } from "./interceptor-chain.ts";
import { registerEventMetrics } from "./metrics/event-metrics.ts";
import { countNoContext, createMetrics } from "./metrics/metrics.ts";
import { type MetricsServer, startMetricsServer } from "./metrics/metrics-routes.ts";
import { createRequestLog } from "./request-log/request-log.ts";
import { resealSecrets } from "./secrets/reseal-secrets.ts";
import { loadSecretsKey, type SecretsKey } from "./secrets/secrets-key.ts";
import { createDatabase } from "./store/engine/database.ts";
import { migrateToLatest } from "./store/engine/migrate.ts";
import { checkPlanSettings } from "./store/engine/plan-settings-check.ts";
import { createErasureCompaction } from "./store/jobs/erasure-compaction.ts";
import { type Sweeper, startSweeper } from "./store/jobs/sweeper.ts";
import { createUsageMeter } from "./usage/usage-meter.ts";
import { waitForDatabase } from "./wait-for-database.ts";

export interface ServerOptions {
  readonly clock?: Clock;
  /** Where log lines go; standard output when unset. */
  readonly logDestination?: pino.DestinationStream;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly context: AppContext;
  /**
   * Settles once the database is reachable and migrated and calls are served;
   * rejects when the wait for it fails (see waitForDatabase) or close() ends it.
   */
  readonly ready: Promise<AdminAccess>;
  /** Where the key sealing stored secrets came from (a key file's path is printed at start). */
  readonly secretsKey: SecretsKey["source"];
  /** Where the admin API is served with ADMIN_LISTEN; undefined: at `url`. */
  readonly adminUrl: string | undefined;
  /** Where GET /metrics is served (METRICS_HOST:METRICS_PORT); undefined with METRICS=off. */
  readonly metricsUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * config → database → context → app → listening, then (in the background)
 * schema → admin access → ready. Until ready, calls and the health check answer 503.
 */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const log = pino({ level: config.logLevel }, options.logDestination);
  const clock = options.clock ?? systemClock;
  // Loaded only when configured: tracing costs nothing when off.
  const tracing = config.tracing ? await openTracing(config.tracing) : undefined;
  // An embedded directory held by another process stops the start here, at once.
  const database = await createDatabase(config, { onQuery: tracing?.onQuery });
  // Watched once ready: opening and migrating the embedded database holds the event loop on purpose.
  let pressure: ProcessPressure | undefined;
  try {
    // After the database: the embedded directory is checked and locked before the key file beside it is read.
    const secretsKey = await loadSecretsKey(config);
    if (secretsKey.source.kind === "file" && database.kind === "postgres") {
      log.warn(
        { keyFile: secretsKey.source.path },
        "SECRETS_KEY is unset: stored secrets are sealed with a key file of this instance; every instance on this database needs the same key",
      );
    }
    const admission = createAdmissionControl({ ...config.admission, pressure: () => pressure?.reason() });
    let isReady = false;
    let pepper: Buffer | undefined;
    const context: Mutable<AppContext> = {
      config,
      // The health check reports the database as disconnected until the schema is in place.
      database: { ...database, ping: () => (isReady ? database.ping() : Promise.reject(new Error("not ready"))) },
      clock,
      log,
      keys: createKeyVerifier(database.db, undefined, clock),
      webhooks: createWebhookVerifier(database.db, clock, secretsKey.box),
      secrets: secretsKey.box,
      rateLimiter: config.redisUrl ? await openRedisRateLimiter(config.redisUrl) : createMemoryRateLimiter(),
      // Read only by calls, which are refused until ready, when it is set.
      adminTokenHash: "",
      metrics: config.metrics ? createMetrics(database, admission) : undefined,
      admission,
      // Calls, which are refused until ready, are the only users; the pepper is read before then.
      forgetMe: createForgetMeHasher(() => {
        if (pepper === undefined) throw new Error("the forget-me pepper is read once the database is ready");
        return pepper;
      }),
      erasures: createErasureCompaction(database.db, {
        ...config.erasure,
        onError: (error) => log.warn({ err: error }, "vacuum or checkpoint after an erasure failed"),
      }),
      meter: createUsageMeter(database.db, clock, {
        intervalMs: config.usageFlushMs,
        onError: (error) => log.error({ err: error }, "usage counts could not be written"),
      }),
      requestLog: createRequestLog(database.db, {
        onError: (error) => log.error({ err: error }, "the request log could not be written"),
      }),
    };
    const failedAuthLimiter = createMemoryRateLimiter();
    const interceptors = createInterceptorChain({
      db: database.db,
      clock,
      log,
      keys: context.keys,
      webhooks: context.webhooks,
      rateLimiter: context.rateLimiter,
      failedAuthLimiter,
      monthlyAllowance: config.monthlyQuota,
      adminTokenHash: () => context.adminTokenHash,
      authFailuresPerMinute: config.authFailuresPerMinute,
      meter: context.meter,
      creditsLow: createCreditsLowWatch(database.db, clock, config.monthlyQuota, (error) =>
        log.error({ err: error }, "credits.low could not be written"),
      ),
      budgets: config.budgetMs,
      isReady: () => isReady,
      admission,
      webhookStartBudgetMs: config.budgetMs.start,
      onNoContext: countNoContext(context.metrics),
      tracing: tracing?.interceptor,
      metrics: context.metrics,
    });
    const { metrics } = context;
    const app = await createApp(context, interceptors, { serves: config.adminListen ? "public" : "all" });
    const url = await app.listen({ port: config.port, host: config.host });
    log.info({ url, database: database.kind }, "caller context listening");
    const adminApp = config.adminListen && (await createApp(context, interceptors, { serves: "admin" }));
    const adminUrl =
      config.adminListen && adminApp
        ? await adminApp.listen({ ...config.adminListen }).catch(async (error) => {
            await app.close();
            throw error;
          })
        : undefined;
    if (adminUrl !== undefined) log.info({ url: adminUrl }, "admin API listening");
    const metricsServer: MetricsServer | undefined =
      metrics === undefined
        ? undefined
        : await startMetricsServer(metrics, config.metricsListen).catch(async (error) => {
            await app.close();
            await adminApp?.close();
            throw error;
          });
    if (metricsServer !== undefined) log.info({ url: metricsServer.url }, "metrics listening");

    const stopReport = reportShedding(admission, log);
    const stopWaiting = new AbortController();
    let sweeper: Sweeper | undefined;
    let delivery: DeliveryWorker | undefined;
    const eventMetrics = metrics && registerEventMetrics(metrics.registry, database.db, () => clock.now());
    const ready = waitForDatabase(
      async () => {
        await checkPlanSettings(database.db);
        await migrateToLatest(database.db);
        const { resealed } = await resealSecrets(database.db, secretsKey.box);
        if (resealed > 0)
          log.info({ resealed, keyId: secretsKey.box.keyId }, "stored secrets sealed with the current key");
        pepper = await forgetMePepper(database.db, secretsKey.box);
        return ensureAdminAccess(database.db, config, clock.now());
      },
      { log, deadlineMs: config.startupDbWaitMs, signal: stopWaiting.signal },
    ).then((adminAccess) => {
      context.adminTokenHash = adminAccess.adminTokenHash;
      sweeper = startSweeper(database.db, clock, {
        ...config.sweep,
        monthlyAllowance: config.monthlyQuota,
        onError: (error) => log.error({ err: error }, "retention sweep failed"),
      });
      if (config.events !== undefined) {
        delivery = startDeliveryWorker(database.db, clock, secretsKey.box, config.events, {
          attempted: (outcome, latencyMs) => eventMetrics?.attempted(outcome, latencyMs),
          endpointDisabled: (endpointId) => {
            eventMetrics?.endpointDisabled();
            log.warn({ endpointId }, "event endpoint disabled after a run of failed deliveries");
          },
          error: (error) => log.error({ err: error }, "event delivery failed"),
        });
      }
      pressure = watchProcessPressure(config.admission);
      isReady = true;
      return adminAccess;
    });
    // Whoever starts the server decides what a failed wait means; no unhandled rejection meanwhile.
    ready.catch(() => {});
    return {
      url,
      app,
      context,
      ready,
      secretsKey: secretsKey.source,
      adminUrl,
      metricsUrl: metricsServer?.url,
      async close() {
        stopWaiting.abort(new Error("server closed while waiting for the database"));
        await ready.catch(() => {});
        await app.close();
        await adminApp?.close();
        await metricsServer?.close();
        context.metrics?.stop();
        stopReport();
        pressure?.stop();
        await sweeper?.stop();
        await delivery?.stop();
        await context.meter.close();
        // After the app has closed: every request it finished is recorded by then.
        await context.requestLog.close();
        await context.erasures.close();
        await failedAuthLimiter.close();
        await context.rateLimiter.close();
        await database.close();
        await tracing?.shutdown();
      },
    };
  } catch (error) {
    pressure?.stop();
    await database.close().catch(() => {});
    throw error;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

async function openTracing(options: NonNullable<Config["tracing"]>) {
  const { createTracing } = await import("./tracing/tracing.ts");
  return createTracing(options);
}

/** Loaded only when Redis is configured: the client library is about 11 MB of memory a single instance does not need. */
async function openRedisRateLimiter(url: string): Promise<RateLimiter> {
  const { createRedisRateLimiter } = await import("./guards/redis-rate-limiter.ts");
  return createRedisRateLimiter(url);
}
