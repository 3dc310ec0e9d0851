import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { type InflightQueryAbortStrategy, Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Config } from "../config.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { createPgliteDialect } from "./pglite-dialect.ts";
import { PreparingClient } from "./preparing-client.ts";
import type { Schema } from "./schema.ts";

export type Db = Kysely<Schema>;

export interface Database {
  readonly db: Db;
  readonly kind: "postgres" | "pglite";
  /**
   * What stops a statement already sent when its request is aborted.
   * PostgreSQL cancels it (and so rolls it back). The embedded database runs
   * a statement in one go on this thread, so there is nothing to cancel: the
   * abort is seen before the statement is sent, which is where a request
   * waits (for the single connection).
   */
  readonly inflightAbort: InflightQueryAbortStrategy;
  /** One round trip; rejects when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function createDatabase(config: Config): Promise<Database> {
  const target = config.database;
  if (target.kind === "postgres") {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolSize,
      statement_timeout: config.statementTimeoutMs,
      connectionTimeoutMillis: config.statementTimeoutMs,
      Client: PreparingClient,
    });
    // An idle client that loses its server emits here; without a listener the process would crash.
    pool.on("error", () => {});
    // So does a checked-out client between two statements of a transaction (the pool
    // listens only while a client is idle); its next statement fails instead, answered with 503.
    pool.on("connect", (client) => client.on("error", () => {}));
    return wrap(new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) }), "postgres");
  }
  if (target.dataDir === ":memory:") {
    const pglite = await PGlite.create();
    return wrap(new Kysely<Schema>({ dialect: createPgliteDialect(pglite) }), "pglite", () => pglite.close());
  }
  // ":memory:" keeps the embedded database in memory (tests); any other value is a
  // directory, held by this process until close.
  await mkdir(target.dataDir, { recursive: true });
  const lock = await lockDataDir(target.dataDir);
  const pglite = await PGlite.create(target.dataDir).catch(async (error) => {
    await lock.release();
    throw error;
  });
  return wrap(new Kysely<Schema>({ dialect: createPgliteDialect(pglite) }), "pglite", async () => {
    await pglite.close();
    await lock.release();
  });
}

function wrap(db: Db, kind: Database["kind"], afterDestroy?: () => Promise<void>): Database {
  let closed: Promise<void> | undefined;
  return {
    db,
    kind,
    inflightAbort: kind === "postgres" ? "cancel query" : "ignore query",
    async ping() {
      await sql`select 1`.execute(db);
    },
    close() {
      closed ??= db.destroy().then(() => afterDestroy?.());
      return closed;
    },
  };
}
