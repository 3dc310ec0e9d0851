import type { FastifyInstance } from "fastify";
import pino from "pino";
import { publishAdminUrl } from "./admin-address.ts";
import { createEndEventListeners } from "./calls/end-event-listeners.ts";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import { forgetMePepper } from "./customers/forget-me-pepper.ts";
import { asDataDirFailure } from "./data-dir-access.ts";
import { migrateToLatest } from "./database/migrate.ts";
import { checkPlanSettings } from "./database/plan-settings-check.ts";
import { type Clock, systemClock } from "./domain/clock.ts";
import { createForgetMeHasher } from "./domain/forget-me.ts";
import type { FallbackRateLimiter } from "./domain/rate-limiter.ts";
import { type DeliveryWorker, startDeliveryWorker } from "./events/delivery-worker.ts";
import { type AdminAccess, ensureAdminAccess, markFirstStartShown, SHOWING_GRACE_MS } from "./first-start.ts";
import { createAdmissionControl, type ProcessPressure, watchProcessPressure } from "./guards/admission.ts";
import { createKeyVerifier } from "./guards/authenticate.ts";
import { createFallbackRateLimiter } from "./guards/fallback-rate-limiter.ts";
import { createCreditsLowWatch } from "./guards/quota-guard.ts";
import { createMemoryRateLimiter } from "./guards/rate-limit.ts";
import { reportShedding } from "./guards/shedding-report.ts";
import { createWebhookVerifier } from "./guards/webhook-verifier.ts";
import { createApp } from "./http/create-app.ts";
import { createInterceptorChain } from "./interceptor-chain.ts";
import { type ContactFiguresJob, startContactFiguresJob } from "./jobs/contact-figures-job.ts";
import { createErasureCompaction } from "./jobs/erasure-compaction.ts";
import { type Sweeper, startSweeper } from "./jobs/sweeper.ts";
import { listenAs } from "./listen-failure.ts";
import { registerEventMetrics } from "./metrics/event-metrics.ts";
import { countNoContext, createMetrics } from "./metrics/metrics.ts";
import { type MetricsServer, startMetricsServer } from "./metrics/metrics-routes.ts";
import { createRequestLog } from "./request-log/request-log.ts";
import { resealSecrets } from "./secrets/reseal-secrets.ts";
import { loadSecretsKey, type SecretsKey } from "./secrets/secrets-key.ts";
import { createDatabase } from "./store/database.ts";
import { createUsageMeter } from "./usage/usage-meter.ts";
import { waitForDatabase } from "./wait-for-database.ts";

export interface ServerOptions {
  readonly clock?: Clock;
  /** Where log lines go; standard output when unset. */
  readonly logDestination?: pino.DestinationStream;
  /**
   * Shows the first start's secrets, before anything else that could fail; once it has returned, later
   * starts neither show nor create them again. Without it they are in `ready`'s value, and count as shown.
   */
  readonly onFirstStart?: (firstStart: NonNullable<AdminAccess["firstStart"]>) => Promise<void>;
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
  /** Where the admin API is served (by default a loopback port of its own); undefined with ADMIN_LISTEN=public: at `url`. */
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
  const database = await createDatabase(config, { onQuery: tracing?.onQuery }).catch((error) => {
    throw asDataDirFailure(config.dataDir, error);
  });
  // Watched once ready: opening and migrating the embedded database holds the event loop on purpose.
  let pressure: ProcessPressure | undefined;
  try {
    // After the database: the embedded directory is checked and locked before the key file beside it is read.
    const secretsKey = await loadSecretsKey(config).catch((error) => {
      throw asDataDirFailure(config.dataDir, error);
    });
    if (secretsKey.source.kind === "file" && database.kind === "postgres") {
      log.warn(
        { keyFile: secretsKey.source.path },
        "SECRETS_KEY is unset: stored secrets are sealed with a key file of this instance; every instance on this database needs the same key",
      );
    }
    const admission = createAdmissionControl({ ...config.admission, pressure: () => pressure?.reason() });
    const redisLimiter = config.redisUrl ? await openRedisRateLimiter(config.redisUrl, config, log) : undefined;
    const rateLimiter = redisLimiter ?? createMemoryRateLimiter();
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
      rateLimiter,
      // Read only by calls, which are refused until ready, when it is set.
      adminTokenHash: "",
      metrics: config.metrics ? createMetrics(database, admission, redisLimiter) : undefined,
      admission,
      // Calls, which are refused until ready, are the only users; the pepper is read before then.
      forgetMe: createForgetMeHasher(() => {
        if (pepper === undefined) throw new Error("the forget-me pepper is read once the database is ready");
        return pepper;
      }),
      erasures: createErasureCompaction(database.db, {
        ...config.erasure,
        onError: (error) => log.warn({ err: error }, "vacuum or checkpoint after an erasure failed"),
        onHeldBack: (waitedMs) =>
          log.warn(
            { waitedMs },
            "the vacuum after an erasure waits for older transactions to end (in any database of the server, or a snapshot held in this one): until then the erased rows stay in the tables' files",
          ),
      }),
      meter: createUsageMeter(database.db, clock, {
        intervalMs: config.usageFlushMs,
        onError: (error) => log.error({ err: error }, "usage counts could not be written"),
      }),
      requestLog: createRequestLog(database.db, {
        onError: (error) => log.error({ err: error }, "the request log could not be written"),
      }),
      endEventListeners: createEndEventListeners(clock),
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
    const url = await listenAs(
      "PORT",
      `${config.host}:${config.port}`,
      app.listen({ port: config.port, host: config.host }),
    );
    log.info({ url, database: database.kind }, "caller context listening");
    const { adminListen } = config;
    const adminApp = adminListen && (await createApp(context, interceptors, { serves: "admin" }));
    const adminUrl =
      adminListen && adminApp
        ? await listenAs(
            "ADMIN_LISTEN",
            `${adminListen.host}:${adminListen.port}`,
            adminApp.listen({ ...adminListen }),
          ).catch(async (error) => {
            await app.close();
            throw error;
          })
        : undefined;
    if (adminUrl !== undefined) log.info({ url: adminUrl }, "admin API listening");
    const withdrawAdminUrl = adminUrl === undefined ? undefined : await publishAdminAddress(config, adminUrl, log);
    const metricsServer: MetricsServer | undefined =
      metrics === undefined
        ? undefined
        : await listenAs(
            "METRICS_PORT",
            `${config.metricsListen.host}:${config.metricsListen.port}`,
            startMetricsServer(metrics, config.metricsListen),
          ).catch(async (error) => {
            await withdrawAdminUrl?.();
            await app.close();
            await adminApp?.close();
            throw error;
          });
    if (metricsServer !== undefined) log.info({ url: metricsServer.url }, "metrics listening");

    const stopReport = reportShedding(admission, log);
    const stopWaiting = new AbortController();
    let sweeper: Sweeper | undefined;
    let contactFigures: ContactFiguresJob | undefined;
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
        return ensureAdminAccess(database.db, config, clock.now(), () =>
          log.info(
            { waitMs: SHOWING_GRACE_MS },
            "the first start's secrets are not shown yet: waiting for the start that created them, else creating them again",
          ),
        );
      },
      { log, deadlineMs: config.startupDbWaitMs, signal: stopWaiting.signal },
    ).then(async (adminAccess) => {
      if (adminAccess.firstStart !== undefined) {
        await options.onFirstStart?.(adminAccess.firstStart);
        await markFirstStartShown(database.db);
      }
      context.adminTokenHash = adminAccess.adminTokenHash;
      sweeper = startSweeper(database.db, clock, {
        ...config.sweep,
        monthlyAllowance: config.monthlyQuota,
        onError: (error) => log.error({ err: error }, "retention sweep failed"),
      });
      contactFigures = startContactFiguresJob(database.db, clock, {
        ...config.contactFigures,
        onError: (error) => log.error({ err: error }, "counting the contact figures failed"),
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
        await withdrawAdminUrl?.();
        await app.close();
        await adminApp?.close();
        await metricsServer?.close();
        context.metrics?.stop();
        stopReport();
        pressure?.stop();
        await sweeper?.stop();
        await contactFigures?.stop();
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

/**
 * Where the CLI finds the admin listener; without it (an in-memory database, a directory that cannot be
 * written) the CLI needs CALLER_CONTEXT_URL, which the warning says.
 */
async function publishAdminAddress(
  config: Config,
  adminUrl: string,
  log: pino.Logger,
): Promise<(() => Promise<void>) | undefined> {
  if (config.database.kind === "pglite" && config.dataDir === ":memory:") return undefined;
  try {
    const withdraw = await publishAdminUrl(config.dataDir, adminUrl);
    return () => withdraw().catch(() => {});
  } catch (error) {
    log.warn(
      { err: error, url: adminUrl },
      "the admin API's address could not be written in DATA_DIR: the CLI needs CALLER_CONTEXT_URL set to it",
    );
    return undefined;
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

async function openTracing(options: NonNullable<Config["tracing"]>) {
  const { createTracing } = await import("./tracing/tracing.ts");
  return createTracing(options);
}

/** Loaded only when Redis is configured: the client library is about 11 MB of memory a single instance does not need. */
async function openRedisRateLimiter(url: string, config: Config, log: pino.Logger): Promise<FallbackRateLimiter> {
  const { createRedisRateLimiter } = await import("./guards/redis-rate-limiter.ts");
  const shared = createRedisRateLimiter({ url, commandTimeoutMs: config.redisTimeoutMs });
  return createFallbackRateLimiter(shared, { log });
}
