import { PGlite } from "@electric-sql/pglite";
import { type InflightQueryAbortStrategy, Kysely, type LogEvent, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { readBlocksTouched } from "./blocks-touched.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { prepareDataDir, tightenDataDir } from "./data-dir-mode.ts";
import type { DatabaseSettings } from "./database-settings.ts";
import { freshMemoryCluster } from "./fresh-memory-cluster.ts";
import { pgClientOptions } from "./pg-client-options.ts";
import { createPgliteDialect } from "./pglite-dialect.ts";
import { pgliteModules } from "./pglite-modules.ts";
import { type PgliteQueryable, PgliteThread } from "./pglite-thread.ts";
import { planSettingsStatement } from "./plan-settings.ts";
import { PreparingPglite } from "./preparing-pglite.ts";
import { createPrimaryLocator, type PrimaryLocator, ReadOnlyHostError } from "./primary-locator.ts";
import { createPrimaryPool } from "./primary-pool.ts";
import { snapshotOf } from "./snapshot.ts";

/** The engine: PostgreSQL or the embedded PGlite, for the tables `S` (the store names them: src/store/database.ts). */
export interface Database<S> {
  readonly db: Kysely<S>;
  readonly kind: "postgres" | "pglite";
  /**
   * What stops a statement already sent when its request is aborted.
   * PostgreSQL cancels it (and so rolls it back). The embedded database runs
   * a statement in one go, so there is nothing to cancel: the abort is seen
   * before the statement is sent, which is where a request waits (for the
   * single connection).
   */
  readonly inflightAbort: InflightQueryAbortStrategy;
  /** One round trip; rejects when the database does not answer. */
  ping(): Promise<void>;
  /** The connection pool's use, for metrics; undefined for the embedded database's single connection. */
  poolStats(): PoolStats | undefined;
  /** Blocks the database has touched so far, by every session (blocks-touched.ts), for metrics. */
  blocksTouched(): Promise<number>;
  /**
   * The embedded database's data directory as a tar that opens as it was
   * (snapshot.ts), taken while no statement runs; undefined for PostgreSQL,
   * which is backed up with its own tools (docs/operations.md, Backups).
   */
  readonly snapshot: (() => Promise<Blob>) | undefined;
  close(): Promise<void>;
}

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  /** Requests waiting for a connection. */
  readonly waiting: number;
}

export interface DatabaseOptions {
  /** Called after each statement (Kysely's log hook); tracing uses it. */
  readonly onQuery?: (event: LogEvent) => void;
  /**
   * Each statement with parameters is prepared once per connection (the
   * default): PostgreSQL and PGlite parse and plan it once. False sends each
   * to be parsed and planned afresh, for the benchmark's A/B (docs/performance-log.md).
   */
  readonly prepareStatements?: boolean;
  /**
   * PostgreSQL's plan cache keeps one generic plan per prepared statement (the
   * default; plan-settings.ts). False leaves it to choose, for the benchmark's A/B.
   */
  readonly genericPlans?: boolean;
}

export async function createDatabase<S>(config: DatabaseSettings, options: DatabaseOptions = {}): Promise<Database<S>> {
  const target = config.database;
  const prepareStatements = options.prepareStatements ?? true;
  const genericPlans = options.genericPlans ?? true;
  if (target.kind === "postgres") {
    const hosts = target.address.hosts;
    const locator = createPrimaryLocator({
      // A hostless URL (a Unix socket given as ?host=) is one host, its address left to node-postgres.
      hosts: hosts.length > 0 ? hosts : [{ label: "DATABASE_URL", host: "", port: 0, url: target.address.url }],
      readWrite: target.address.readWrite,
      timeoutMs: config.statementTimeoutMs,
    });
    const client = pgClientOptions(target.pooler, config.statementTimeoutMs, { prepareStatements, genericPlans });
    const { Client = pg.Client, ...clientOptions } = client.pool;
    const { pool, stats } = createPrimaryPool(locator, Client as typeof pg.Client, {
      ...clientOptions,
      connectionString: hosts[0]?.url ?? target.address.url,
      max: target.poolSize,
      connectionTimeoutMillis: config.statementTimeoutMs,
    });
    return wrap(
      new Kysely<S>({
        dialect: new PostgresDialect({ pool, controlClient: client.controlClient }),
        log: options.onQuery,
      }),
      "postgres",
      stats,
      // No snapshot (PostgreSQL is backed up with its own tools), nothing to do after the pool ends.
      undefined,
      undefined,
      locator.readWrite ? (db) => pingWritable(db, locator) : undefined,
    );
  }
  const { pglite, release } = await openPglite(target.dataDir, target.thread, {
    prepareStatements,
    genericPlans,
  });
  const db = new Kysely<S>({ dialect: createPgliteDialect(pglite), log: options.onQuery });
  return wrap(
    db,
    "pglite",
    () => undefined,
    // Holding the one connection, the copy waits for a transaction in flight and the next one waits for it.
    () => db.connection().execute(() => pglite.snapshot()),
    async () => {
      await pglite.close();
      await release();
    },
  );
}

interface OpenPglite {
  readonly pglite: PgliteQueryable & { close(): Promise<void>; snapshot(): Promise<Blob> };
  readonly release: () => Promise<void>;
}

interface EmbeddedStatements {
  readonly prepareStatements: boolean;
  readonly genericPlans: boolean;
}

/**
 * ":memory:" keeps the embedded database in memory (tests); any other value is a
 * directory, held by this process until close. "worker" runs PGlite on a thread
 * of its own, so the service's JavaScript and the database's WASM use two cores.
 */
async function openPglite(
  dataDir: string,
  thread: "worker" | "main",
  statements: EmbeddedStatements,
): Promise<OpenPglite> {
  const open = () =>
    thread === "worker" ? PgliteThread.open(dataDir, statements) : openOnMainThread(dataDir, statements);
  if (dataDir === ":memory:") return { pglite: await open(), release: async () => {} };
  // A directory open to other users stops the start before anything is read from it or written.
  await prepareDataDir(dataDir);
  // An embedded directory held by another process stops the start here, at once.
  const lock = await lockDataDir(dataDir);
  const pglite = await open().catch(async (error) => {
    await lock.release();
    throw error;
  });
  await tightenDataDir(dataDir);
  return { pglite, release: () => lock.release() };
}

async function openOnMainThread(
  dataDir: string,
  { prepareStatements, genericPlans }: EmbeddedStatements,
): Promise<OpenPglite["pglite"]> {
  const where = dataDir === ":memory:" ? { loadDataDir: await freshMemoryCluster() } : { dataDir };
  const pglite = await PGlite.create({ ...where, ...(await pgliteModules()) });
  await pglite.exec(planSettingsStatement(genericPlans));
  const statements = prepareStatements ? new PreparingPglite(pglite) : pglite;
  return {
    query: (text, params) => statements.query(text, params),
    close: () => pglite.close(),
    snapshot: () => snapshotOf(pglite),
  };
}

function wrap<S>(
  db: Kysely<S>,
  kind: Database<S>["kind"],
  poolStats: () => PoolStats | undefined,
  snapshot: Database<S>["snapshot"],
  afterDestroy?: () => Promise<void>,
  ping: (db: Kysely<S>) => Promise<void> = pingAny,
): Database<S> {
  let closed: Promise<void> | undefined;
  return {
    db,
    kind,
    inflightAbort: kind === "postgres" ? "cancel query" : "ignore query",
    poolStats,
    snapshot,
    blocksTouched: () => readBlocksTouched(db),
    ping: () => ping(db),
    close() {
      closed ??= db.destroy().then(() => afterDestroy?.());
      return closed;
    },
  };
}

async function pingAny<S>(db: Kysely<S>): Promise<void> {
  await sql`select 1`.execute(db);
}

/** With target_session_attrs=read-write, a server that answers but takes no writes is no database for us. */
async function pingWritable<S>(db: Kysely<S>, locator: PrimaryLocator): Promise<void> {
  const { rows } = await sql<{ transaction_read_only: string }>`show transaction_read_only`.execute(db);
  if (rows[0]?.transaction_read_only === "off") return;
  locator.forget();
  throw new ReadOnlyHostError("the database");
}
