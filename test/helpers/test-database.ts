import { randomBytes } from "node:crypto";
import pg from "pg";
import { envToConfig } from "../../src/config.ts";
import { migrateToLatest } from "../../src/database/migrate.ts";
import { createDatabase, type Database, type DatabaseOptions } from "../../src/store/database.ts";

// Each test file gets a database of its own: a fresh PostgreSQL database when
// DATABASE_URL is set (DATABASE_POOLER passed on with it), otherwise an in-memory embedded one (on the thread
// EMBEDDED_DB_THREAD names, if set).

export interface TestDatabase {
  /** Environment entries selecting this database. */
  readonly env: Record<string, string>;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const thread = process.env.EMBEDDED_DB_THREAD;
    return { env: { DATA_DIR: ":memory:", ...(thread ? { EMBEDDED_DB_THREAD: thread } : {}) }, drop: async () => {} };
  }
  const name = `cc_test_${randomBytes(6).toString("hex")}`;
  await withAdminClient(base, (client) => client.query(`create database ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  // Through a pooler (the CI's PgBouncer run), the service is told which kind.
  const pooler = process.env.DATABASE_POOLER;
  return {
    env: { DATABASE_URL: url.toString(), ...(pooler ? { DATABASE_POOLER: pooler } : {}) },
    drop: () => withAdminClient(base, (client) => client.query(`drop database if exists ${name} with (force)`)),
  };
}

/** The service's store on a database of the test file's own, migrated; `env` adds settings (DB_POOL_SIZE…). */
export interface MigratedTestDatabase {
  readonly database: Database;
  /** Closes the store and drops the database. */
  close(): Promise<void>;
}

export async function openMigratedTestDatabase(
  env: Record<string, string> = {},
  options: DatabaseOptions = {},
): Promise<MigratedTestDatabase> {
  const testDatabase = await createTestDatabase();
  const database = await createDatabase(envToConfig({ ...testDatabase.env, ...env, LOG_LEVEL: "silent" }), options);
  const close = async () => {
    await database.close();
    await testDatabase.drop();
  };
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await close();
    throw error;
  }
  return { database, close };
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
