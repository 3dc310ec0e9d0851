import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { type Config, envToConfig } from "../../src/config.ts";
import { createDatabase, type Database } from "../../src/store/database.ts";

// A database of the benchmark's own: a fresh PostgreSQL database on the
// server DATABASE_URL names, or a fresh embedded data directory under bench/.

export interface BenchDatabase {
  readonly kind: "postgres" | "pglite";
  /** The database name or the data directory. */
  readonly name: string;
  /** What the server process needs to use it. */
  readonly env: Readonly<Record<string, string>>;
  /** The same database for code running in this process (seeding, the DB ceiling). */
  open(): Promise<Database>;
  /** Drops the database or removes the directory. */
  dispose(): Promise<void>;
}

export async function createBenchDatabase(databaseUrl: string | undefined, stamp: string): Promise<BenchDatabase> {
  if (databaseUrl === undefined || databaseUrl === "") {
    const dir = fileURLToPath(new URL(`../.data-${stamp}`, import.meta.url));
    const env = { DATA_DIR: dir };
    return {
      kind: "pglite",
      name: dir,
      env,
      open: () => createDatabase(configFor(env)),
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const name = `cc_bench_${stamp}`;
  await withAdminClient(databaseUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  // Behind a pooler (DATABASE_URL naming PgBouncer), the benchmark's own store (seed, DB ceiling) is told so too.
  const pooler = process.env.DATABASE_POOLER;
  const env = { DATABASE_URL: url.toString(), ...(pooler ? { DATABASE_POOLER: pooler } : {}) };
  return {
    kind: "postgres",
    name,
    env,
    open: () => createDatabase(configFor(env)),
    dispose: () =>
      withAdminClient(databaseUrl, (client) => client.query(`drop database if exists ${name} with (force)`)),
  };
}

/** The server's own defaults (pool size, timeouts) apply in this process too. */
function configFor(env: Record<string, string>): Config {
  return envToConfig({ ...env, LOG_LEVEL: "silent" });
}

export async function databaseVersion(database: Database): Promise<string> {
  const { rows } = await sql<{ version: string }>`select version()`.execute(database.db);
  return rows[0]?.version ?? "unknown";
}

async function withAdminClient(url: string, use: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await use(client);
  } finally {
    await client.end();
  }
}
