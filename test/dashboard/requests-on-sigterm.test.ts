import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { envToConfig } from "../../src/config.ts";
import { createDatabase } from "../../src/store/database.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// The Requests page loses nothing on a graceful stop: the service in a process
// of its own answers a few calls, gets SIGTERM at once, and every one of them
// is in request_log when the database is read afterwards: PostgreSQL, or the
// embedded database's directory opened again once the process is gone.

describe("request log on SIGTERM", () => {
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  afterAll(async () => {
    await database?.drop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it("writes every answered request before the process exits", async () => {
    database = await createTestDatabase();
    // The suites' embedded database lives in memory and ends with its process: this one gets a directory.
    dataDir = process.env.DATABASE_URL ? undefined : await mkdtemp(join(tmpdir(), "cc-requests-"));
    const server = await startServerProcess(dataDir === undefined ? database.env : { DATA_DIR: join(dataDir, "data") });
    const { apiKey } = await createAccountWithKey(server.url);
    const ids = ["term-1", "term-2", "term-3"];
    for (const id of ids) {
      const body = { call_id: id, identity_hints: { ani: "+14155550123" } };
      expect((await post(server.url, "/v1/calls/start", apiKey, body, { "x-request-id": id })).status).toBe(200);
    }
    // Within the log's one-second interval: only the graceful close can have written them.
    server.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);

    expect(await requestIdsLogged(database, dataDir)).toEqual(ids);
  }, 120_000);
});

async function requestIdsLogged(database: TestDatabase, dataDir: string | undefined): Promise<string[]> {
  if (dataDir !== undefined) {
    const embedded = await createDatabase(envToConfig({ DATA_DIR: join(dataDir, "data") }));
    try {
      const { rows } = await sql<{
        request_id: string;
      }>`select request_id from request_log order by request_id`.execute(embedded.db);
      return rows.map((row) => row.request_id);
    } finally {
      await embedded.close();
    }
  }
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query("select request_id from request_log order by request_id");
    return rows.map((row) => row.request_id);
  } finally {
    await client.end();
  }
}
