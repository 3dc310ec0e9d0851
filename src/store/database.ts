import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { Config } from "../config.ts";
import { createPgliteDialect } from "./pglite-dialect.ts";
import type { Schema } from "./schema.ts";

export type Db = Kysely<Schema>;

export interface Database {
  readonly db: Db;
  readonly kind: "postgres" | "pglite";
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
    });
    // An idle client that loses its server emits here; without a listener the process would crash.
    pool.on("error", () => {});
    // So does a checked-out client between two statements of a transaction (the pool
    // listens only while a client is idle); its next statement fails instead, answered with 503.
    pool.on("connect", (client) => client.on("error", () => {}));
    return wrap(new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) }), "postgres");
  }
  const pglite = await openPglite(target.dataDir);
  return wrap(new Kysely<Schema>({ dialect: createPgliteDialect(pglite) }), "pglite", () => pglite.close());
}

/** ":memory:" keeps the embedded database in memory (tests); any other value is a directory. */
async function openPglite(dataDir: string): Promise<PGlite> {
  if (dataDir === ":memory:") return PGlite.create();
  await mkdir(dataDir, { recursive: true });
  return PGlite.create(dataDir);
}

function wrap(db: Db, kind: Database["kind"], afterDestroy?: () => Promise<void>): Database {
  let closed: Promise<void> | undefined;
  return {
    db,
    kind,
    async ping() {
      await sql`select 1`.execute(db);
    },
    close() {
      closed ??= db.destroy().then(() => afterDestroy?.());
      return closed;
    },
  };
}
