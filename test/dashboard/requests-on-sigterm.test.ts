import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

// The Requests page loses nothing on a graceful stop: the service in a process
// of its own answers a few calls, gets SIGTERM at once, and every one of them
// is in request_log when the database is read afterwards. On PostgreSQL only:
// the in-memory embedded database of the suites ends with its process.

describe.skipIf(!process.env.DATABASE_URL)("request log on SIGTERM", () => {
  let database: TestDatabase | undefined;
  afterAll(async () => database?.drop());

  it("writes every answered request before the process exits", async () => {
    database = await createTestDatabase();
    const server = await startServerProcess(database.env);
    const { apiKey } = await createAccountWithKey(server.url);
    const ids = ["term-1", "term-2", "term-3"];
    for (const id of ids) {
      const body = { call_id: id, identity_hints: { ani: "+14155550123" } };
      expect((await post(server.url, "/v1/calls/start", apiKey, body, { "x-request-id": id })).status).toBe(200);
    }
    // Within the log's one-second interval: only the graceful close can have written them.
    server.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);

    const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query("select request_id from request_log order by request_id");
      expect(rows.map((r) => r.request_id)).toEqual(ids);
    } finally {
      await client.end();
    }
  }, 120_000);
});
