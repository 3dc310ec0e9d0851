import { z } from "zod";
import type { DatabaseTarget } from "./database/database-settings.ts";
import { DATABASE_URL_FORM, parseDatabaseUrl } from "./database/database-url.ts";
import { type DeliverySettings, DISABLE_AFTER_FAILURES, DISABLE_AFTER_MS, RETRY_DELAYS_MS } from "./domain/events.ts";
import type { SensitiveDataPolicy } from "./domain/sensitive-data.ts";

// The only reader of process.env. `readEnv` picks the variables, `envToConfig`
// turns them into a frozen Config (a pure function tests call directly) and
// reports every problem at once. OpenTelemetry's own variables, the endpoint
// that turns tracing on aside, are left to its SDK, which reads them itself
// (src/tracing/tracing.ts).

const integer = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

const envSchema = z.object({
  PORT: integer(8080),
  METRICS: z.enum(["on", "off"]).default("on"),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  METRICS_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  HOST: z.string().min(1).default("127.0.0.1"),
  LISTEN_SOCKETS: z.coerce.number().int().min(1).max(64).default(16),
  DATABASE_URL: z
    .string()
    .refine((url) => parseDatabaseUrl(url) !== undefined, DATABASE_URL_FORM)
    .optional(),
  DATABASE_POOLER: z.enum(["none", "session", "transaction"]).default("none"),
  DATA_DIR: z.string().min(1).default("./data"),
  EMBEDDED_DB_THREAD: z.enum(["worker", "main"]).default("worker"),
  BACKUP_DIR: z.string().min(1).default("./backups"),
  REDIS_URL: z.string().url().optional(),
  REDIS_TIMEOUT_MS: integer(250, 10),
  ADMIN_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
  ADMIN_LISTEN: z
    .string()
    .regex(
      /^(public|(\[[0-9a-fA-F:.]+\]|[^:\s]+):\d{1,5})$/,
      "must be host:port, such as 127.0.0.1:9090 or [::1]:9090, or public",
    )
    .default("127.0.0.1:0"),
  SECRETS_KEY: z.string().optional(),
  ERASURE_VACUUM: z.enum(["full", "plain", "off"]).optional(),
  ERASURE_VACUUM_QUIET_MS: integer(1000),
  SECRETS_KEY_PREVIOUS: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DEFAULT_REGION: z
    .string()
    .regex(/^[A-Z]{2}$/, "must be an ISO 3166 alpha-2 code such as US")
    .default("US"),
  SENSITIVE_DATA_POLICY: z.enum(["reject", "redact", "off"]).default("reject"),
  BODY_LIMIT_BYTES: integer(1024 * 1024, 1024),
  DB_POOL_SIZE: integer(4, 1),
  DB_STATEMENT_TIMEOUT_MS: integer(5000, 100),
  REQUEST_TIMEOUT_MS: integer(10_000, 100),
  START_BUDGET_MS: integer(1000, 10),
  AUTH_FAILURES_PER_MINUTE: integer(30, 1),
  END_BUDGET_MS: integer(5000, 10),
  SHUTDOWN_GRACE_MS: integer(10_000, 0),
  STARTUP_DB_WAIT_S: integer(0),
  SWEEP_INTERVAL_MS: integer(60_000, 1000),
  SWEEP_BATCH_SIZE: integer(1000, 1),
  CONTACT_FIGURES_INTERVAL_MS: integer(15_000, 1000),
  CONTACT_FIGURES_BATCH_SIZE: integer(1000, 1),
  ADMISSION_CONTROL: z.enum(["on", "off"]).default("on"),
  ADMISSION_EARLY_REFUSAL: z.enum(["on", "off"]).default("on"),
  ADMISSION_INITIAL_LIMIT: integer(20, 1),
  ADMISSION_MIN_LIMIT: integer(20, 1),
  ADMISSION_MAX_LIMIT: integer(40, 1),
  ADMISSION_QUEUE_SIZE: integer(512),
  ADMISSION_QUEUE_WAIT_MS: integer(300),
  ADMISSION_BURST_MS: integer(150),
  ADMISSION_QUEUE_FORECAST: z.enum(["on", "off"]).default("on"),
  ADMISSION_MAX_LATENCY_MS: integer(250),
  ADMISSION_MAX_EVENT_LOOP_DELAY_MS: integer(1000),
  ADMISSION_MAX_HEAP_USED_BYTES: integer(0),
  QUOTA_FREE: integer(100),
  QUOTA_STARTER: integer(10_000),
  QUOTA_GROWTH: integer(100_000),
  QUOTA_SCALE: integer(1_000_000),
  SIGNUP: z.enum(["open", "invite"]).default("open"),
  TRUST_PROXY: z.string().default("false"),
  SESSION_TTL_HOURS: integer(12, 1),
  SESSION_IDLE_MINUTES: integer(30, 1),
  SIGNUP_PER_MINUTE_PER_ADDRESS: integer(3, 1),
  SIGNUP_PER_MINUTE: integer(30, 1),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, "must be an smtp:// or smtps:// URL")
    .optional(),
  MAIL_FROM: z.string().min(3).default("Caller Context <no-reply@localhost>"),
  PUBLIC_URL: z.string().url().optional(),
  VERIFY_TTL_HOURS: integer(24, 1),
  RESET_TTL_MINUTES: integer(60, 5),
  INVITE_TTL_HOURS: integer(72, 1),
  SIGNIN_ATTEMPTS_PER_MINUTE: integer(10, 1),
  USAGE_FLUSH_MS: integer(5000, 50),
  EVENTS_DELIVERY: z.enum(["on", "off"]).default("on"),
  EVENTS_POLL_MS: integer(1000, 10),
  EVENTS_CONCURRENCY: integer(16, 1),
  EVENTS_TIMEOUT_MS: integer(10_000, 100),
  EVENTS_MAX_RESPONSE_BYTES: integer(64 * 1024, 0),
  EVENTS_RETRY_DELAYS_MS: z
    .string()
    .regex(/^\d+(,\d+)*$/, "must be milliseconds separated by commas")
    .optional(),
  EVENTS_DISABLE_AFTER_FAILURES: integer(DISABLE_AFTER_FAILURES, 1),
  EVENTS_DISABLE_AFTER_MS: integer(DISABLE_AFTER_MS, 0),
});

export type Env = Record<string, string | undefined>;

import type { Tier } from "./domain/tiers.ts";

export interface Config {
  readonly port: number;
  /** Prometheus metrics; off only to measure what they cost. */
  readonly metrics: boolean;
  /** GET /metrics on a listener of its own, never on the API's port; 0 picks a free port. */
  readonly metricsListen: { readonly host: string; readonly port: number; readonly token: string | undefined };
  /** OTLP/HTTP tracing, off when no endpoint is set. */
  readonly tracing: { readonly endpoint: string } | undefined;
  readonly host: string;
  readonly database: DatabaseTarget;
  readonly statementTimeoutMs: number;
  readonly redisUrl: string | undefined;
  /** How long a Redis command may go unanswered before the rate limit uses this instance's windows. */
  readonly redisTimeoutMs: number;
  /** Where the embedded database lives, and the secrets key file when SECRETS_KEY is unset. */
  readonly dataDir: string;
  /** Where `caller-context backup` has the server write the embedded database's backups. */
  readonly backupDir: string;
  /** The key that seals stored secrets (docs/security.md); from a key file in dataDir when unset. */
  readonly secrets: { readonly key: Buffer | undefined; readonly previousKeys: readonly Buffer[] };
  readonly adminToken: string | undefined;
  /**
   * The admin API on a listener of its own and not on the public port: by default on loopback at a port the
   * system picks (published in dataDir for the CLI); undefined with ADMIN_LISTEN=public: on the public port.
   */
  readonly adminListen: { readonly host: string; readonly port: number } | undefined;
  /** After erasures: VACUUM FULL (embedded default), plain VACUUM (PostgreSQL default) or none; then a checkpoint. */
  readonly erasure: { readonly vacuum: "full" | "plain" | "off"; readonly quietMs: number };
  readonly logLevel: string;
  readonly defaultRegion: string;
  readonly sensitiveData: SensitiveDataPolicy;
  readonly bodyLimitBytes: number;
  readonly requestTimeoutMs: number;
  /** Failed authentications one client address may make per rolling minute before 429. */
  readonly authFailuresPerMinute: number;
  /** How long a start or an end may take before the client gets 503 and the work is abandoned. */
  readonly budgetMs: { readonly start: number; readonly end: number };
  readonly shutdownGraceMs: number;
  /** Listening sockets sharing the port: how many new connections a turn of the event loop accepts. */
  readonly listenSockets: number;
  /** How long start-up waits for the database before giving up; 0 waits for ever. */
  readonly startupDbWaitMs: number;
  readonly monthlyQuota: Readonly<Record<Tier, number>>;
  readonly sweep: { readonly intervalMs: number; readonly batchSize: number };
  /** The contact figures' job (docs/analytics.md). */
  readonly contactFigures: { readonly intervalMs: number; readonly batchSize: number };
  /** Calls in flight per instance (see docs/operations.md, Overload). */
  readonly admission: {
    readonly enabled: boolean;
    /** Refuse before a body is read (REST, plain gRPC) when the limit and the queue are full; off for an A/B. */
    readonly early: boolean;
    readonly limit: {
      readonly initial: number;
      readonly min: number;
      readonly max: number;
      /** Recent latency above which the limit shrinks whatever its trend; 0: none. */
      readonly maxLatencyMs: number;
    };
    readonly queueSize: number;
    /** Once the queue has stood longer than burstMs: the longest forecast wait a call may join with. */
    readonly queueWaitMs: number;
    readonly burstMs: number;
    /** Refuse at once a call whose forecast wait is longer than it may have; off for an A/B. */
    readonly forecastQueueWait: boolean;
    /** 0: not checked. */
    readonly maxEventLoopDelayMs: number;
    /** 0: 90 % of V8's heap limit. */
    readonly maxHeapUsedBytes: number;
  };
  readonly dashboard: {
    /** "open": anyone may sign up; "invite": only with a link from the operator. */
    readonly signup: "open" | "invite";
    /** A session's absolute lifetime, however busy it is. */
    readonly sessionTtlMs: number;
    /** A session unused this long ends. */
    readonly sessionIdleMs: number;
    /** Sign-ups per rolling minute from one client address, and from everyone together. */
    readonly signupsPerMinute: { readonly perAddress: number; readonly global: number };
    readonly verifyTtlMs: number;
    readonly resetTtlMs: number;
    readonly inviteTtlMs: number;
    /** Sign-in attempts per rolling minute per email; a client address gets five times as many. */
    readonly signinAttemptsPerMinute: number;
  };
  /** Where the dashboard's mail goes: an SMTP server, or (unset) the log, for a local setup. */
  readonly mail: {
    readonly smtpUrl: string | undefined;
    readonly from: string;
    /** The origin links in mail point to; unset, the request's own (trustworthy only on a local setup). */
    readonly publicUrl: string | undefined;
  };
  /** Fastify's trustProxy: whether X-Forwarded-For/-Proto are believed, and from whom. */
  readonly trustProxy: boolean | string;
  /** How often counted usage and keys' last use are written. */
  readonly usageFlushMs: number;
  /** Event delivery (docs/events.md); undefined when EVENTS_DELIVERY=off (events are still written to the outbox). */
  readonly events: DeliverySettings | undefined;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration: ${problems.join("; ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export function readEnv(): Env {
  return { ...process.env };
}

export function envToConfig(env: Env): Config {
  // Empty strings mean "unset", as they do in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const e = parsed.data;
  if (!(e.ADMISSION_MIN_LIMIT <= e.ADMISSION_INITIAL_LIMIT && e.ADMISSION_INITIAL_LIMIT <= e.ADMISSION_MAX_LIMIT)) {
    throw new ConfigError(["ADMISSION_INITIAL_LIMIT: must lie between ADMISSION_MIN_LIMIT and ADMISSION_MAX_LIMIT"]);
  }
  const keyProblems: string[] = [];
  const secretsKey =
    e.SECRETS_KEY === undefined ? undefined : parseSecretsKey("SECRETS_KEY", e.SECRETS_KEY, keyProblems);
  const previousKeys = (e.SECRETS_KEY_PREVIOUS ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .flatMap((part) => parseSecretsKey("SECRETS_KEY_PREVIOUS", part, keyProblems) ?? []);
  if (keyProblems.length > 0) throw new ConfigError(keyProblems);
  return Object.freeze({
    port: e.PORT,
    metrics: e.METRICS === "on",
    metricsListen: Object.freeze({ host: e.METRICS_HOST, port: e.METRICS_PORT, token: e.METRICS_TOKEN }),
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT ? Object.freeze({ endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT }) : undefined,
    host: e.HOST,
    database: e.DATABASE_URL
      ? {
          kind: "postgres" as const,
          url: e.DATABASE_URL,
          // Checked by the schema above.
          address: parseDatabaseUrl(e.DATABASE_URL)!,
          poolSize: e.DB_POOL_SIZE,
          pooler: e.DATABASE_POOLER,
        }
      : { kind: "pglite" as const, dataDir: e.DATA_DIR, thread: e.EMBEDDED_DB_THREAD },
    statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    redisTimeoutMs: e.REDIS_TIMEOUT_MS,
    dataDir: e.DATA_DIR,
    backupDir: e.BACKUP_DIR,
    secrets: Object.freeze({ key: secretsKey, previousKeys: Object.freeze(previousKeys) }),
    adminToken: e.ADMIN_TOKEN,
    adminListen: e.ADMIN_LISTEN === "public" ? undefined : parseHostPort(e.ADMIN_LISTEN),
    erasure: Object.freeze({
      vacuum: e.ERASURE_VACUUM ?? (e.DATABASE_URL ? ("plain" as const) : ("full" as const)),
      quietMs: e.ERASURE_VACUUM_QUIET_MS,
    }),
    logLevel: e.LOG_LEVEL,
    defaultRegion: e.DEFAULT_REGION,
    sensitiveData: e.SENSITIVE_DATA_POLICY,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    authFailuresPerMinute: e.AUTH_FAILURES_PER_MINUTE,
    budgetMs: Object.freeze({ start: e.START_BUDGET_MS, end: e.END_BUDGET_MS }),
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    listenSockets: e.LISTEN_SOCKETS,
    startupDbWaitMs: e.STARTUP_DB_WAIT_S * 1000,
    sweep: Object.freeze({ intervalMs: e.SWEEP_INTERVAL_MS, batchSize: e.SWEEP_BATCH_SIZE }),
    contactFigures: Object.freeze({
      intervalMs: e.CONTACT_FIGURES_INTERVAL_MS,
      batchSize: e.CONTACT_FIGURES_BATCH_SIZE,
    }),
    admission: Object.freeze({
      enabled: e.ADMISSION_CONTROL === "on",
      early: e.ADMISSION_EARLY_REFUSAL === "on",
      limit: Object.freeze({
        initial: e.ADMISSION_INITIAL_LIMIT,
        min: e.ADMISSION_MIN_LIMIT,
        max: e.ADMISSION_MAX_LIMIT,
        maxLatencyMs: e.ADMISSION_MAX_LATENCY_MS,
      }),
      queueSize: e.ADMISSION_QUEUE_SIZE,
      queueWaitMs: e.ADMISSION_QUEUE_WAIT_MS,
      burstMs: e.ADMISSION_BURST_MS,
      forecastQueueWait: e.ADMISSION_QUEUE_FORECAST === "on",
      maxEventLoopDelayMs: e.ADMISSION_MAX_EVENT_LOOP_DELAY_MS,
      maxHeapUsedBytes: e.ADMISSION_MAX_HEAP_USED_BYTES,
    }),
    dashboard: Object.freeze({
      signup: e.SIGNUP,
      sessionTtlMs: e.SESSION_TTL_HOURS * 3_600_000,
      sessionIdleMs: e.SESSION_IDLE_MINUTES * 60_000,
      signupsPerMinute: Object.freeze({ perAddress: e.SIGNUP_PER_MINUTE_PER_ADDRESS, global: e.SIGNUP_PER_MINUTE }),
      verifyTtlMs: e.VERIFY_TTL_HOURS * 3_600_000,
      resetTtlMs: e.RESET_TTL_MINUTES * 60_000,
      inviteTtlMs: e.INVITE_TTL_HOURS * 3_600_000,
      signinAttemptsPerMinute: e.SIGNIN_ATTEMPTS_PER_MINUTE,
    }),
    mail: Object.freeze({
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ""),
    }),
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    usageFlushMs: e.USAGE_FLUSH_MS,
    events:
      e.EVENTS_DELIVERY === "off"
        ? undefined
        : Object.freeze({
            pollMs: e.EVENTS_POLL_MS,
            concurrency: e.EVENTS_CONCURRENCY,
            timeoutMs: e.EVENTS_TIMEOUT_MS,
            maxResponseBytes: e.EVENTS_MAX_RESPONSE_BYTES,
            retryDelaysMs: Object.freeze(e.EVENTS_RETRY_DELAYS_MS?.split(",").map(Number) ?? RETRY_DELAYS_MS),
            disableAfter: Object.freeze({
              failures: e.EVENTS_DISABLE_AFTER_FAILURES,
              afterMs: e.EVENTS_DISABLE_AFTER_MS,
            }),
          }),
    monthlyQuota: Object.freeze({
      free: e.QUOTA_FREE,
      starter: e.QUOTA_STARTER,
      growth: e.QUOTA_GROWTH,
      scale: e.QUOTA_SCALE,
    }),
  });
}

/** "host:port" or "[v6]:port", already checked by the schema. */
function parseHostPort(value: string): { host: string; port: number } {
  const colon = value.lastIndexOf(":");
  return Object.freeze({ host: value.slice(0, colon).replace(/^\[|\]$/g, ""), port: Number(value.slice(colon + 1)) });
}

/** 32 bytes written as 64 hex digits or in base64 (`openssl rand -base64 32`). */
function parseSecretsKey(name: string, value: string, problems: string[]): Buffer | undefined {
  const bytes = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, "hex")
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
      ? Buffer.from(value, "base64")
      : undefined;
  if (bytes?.length === 32) return bytes;
  problems.push(`${name}: must be 32 bytes as 64 hex digits or in base64 (openssl rand -base64 32)`);
  return undefined;
}

/** "false" (default), "true", or the proxies' addresses/CIDRs separated by commas. */
function parseTrustProxy(value: string): boolean | string {
  return value === "true" || value === "false" ? value === "true" : value;
}
