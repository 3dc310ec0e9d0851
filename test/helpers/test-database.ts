import { randomBytes } from "node:crypto";
import pg from "pg";

// Each test file gets a database of its own: a fresh PostgreSQL database when
// DATABASE_URL is set, otherwise an in-memory embedded one (on the thread
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
  return {
    env: { DATABASE_URL: url.toString() },
    drop: () => withAdminClient(base, (client) => client.query(`drop database if exists ${name} with (force)`)),
  };
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
