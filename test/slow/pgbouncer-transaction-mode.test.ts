import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";
import { startThrowawayPgbouncer, type ThrowawayPgbouncer } from "../helpers/throwaway-pgbouncer.ts";

// Behind PgBouncer 1.18 in transaction mode (default settings otherwise), each
// transaction may run on another server connection: a statement prepared on
// one is not found on the next ("prepared statement cc_… does not exist"),
// and PgBouncer refuses the startup parameters that carried the plan settings.
// With DATABASE_POOLER=transaction every call is answered and a call past its
// budget has its statement cancelled; told nothing, the service refuses to
// start with one line naming the setting, and so it does behind a pooler told
// to drop those parameters (the plans would no longer be held to probes).

/** Calls at once: several times the service's pool (4) and PgBouncer's pool per database is 20. */
const AT_ONCE = 24;
const ROUNDS = 5;

let database: TestDatabase;
let pooler: ThrowawayPgbouncer;
let throughPooler: string;

beforeAll(async () => {
  if (!process.env.DATABASE_URL) {
    throw new Error(
      "The PgBouncer tests need a PostgreSQL server to put it in front of; set DATABASE_URL, " +
        "e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres",
    );
  }
  database = await createTestDatabase();
  pooler = await startThrowawayPgbouncer(database.env.DATABASE_URL!, { poolMode: "transaction" });
  throughPooler = pooler.urlFor(database.env.DATABASE_URL!);
});
afterAll(async () => {
  await pooler?.stop();
  await database?.drop();
});

describe("behind PgBouncer 1.18 in transaction mode", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      database,
      env: { DATABASE_URL: throughPooler, DATABASE_POOLER: "transaction", START_BUDGET_MS: "30000" },
    });
  });
  afterAll(() => server?.stop());

  test("every start and end is answered 200, many more at once than connections, and every end is saved", async () => {
    const { apiKey } = await createAccountWithKey(server.url);
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    const count = (operation: string, status: number, callId: string, body: unknown) => {
      const key = `${operation} ${status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (status !== 200) failures.push(`${operation} ${callId}: ${JSON.stringify(body)}`);
    };
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        Array.from({ length: AT_ONCE }, async (_, i) => {
          const callId = `pooled-${round}-${i}`;
          const ani = `+1415555${String(round * AT_ONCE + i).padStart(4, "0")}`;
          const start = await post(server.url, "/v1/calls/start", apiKey, { call_id: callId, identity_hints: { ani } });
          count("start", start.status, callId, start.body);
          const end = await post(server.url, "/v1/calls/end", apiKey, {
            call_id: callId,
            customer_ref: start.body.customer_ref,
            intent: "billing_question",
            intent_status: "open",
          });
          count("end", end.status, callId, end.body);
        }),
      );
    }
    const errors = server.logLines.filter((line) => /"level":(50|60)/.test(line)).slice(0, 3);
    expect(Object.fromEntries(statuses), [...failures.slice(0, 3), ...errors].join("\n")).toEqual({
      "start 200": AT_ONCE * ROUNDS,
      "end 200": AT_ONCE * ROUNDS,
    });
    // Read on PostgreSQL itself, not through the pooler.
    const reader = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await reader.connect();
    try {
      const { rows } = await reader.query<{ ended: number }>(
        "select count(*)::int as ended from calls where call_id like 'pooled-%' and call_end is not null",
      );
      expect(rows[0]?.ended).toBe(AT_ONCE * ROUNDS);
    } finally {
      await reader.end();
    }
  });
});

describe("behind PgBouncer 1.18 in transaction mode, a call whose budget runs out", () => {
  let server: TestServer;
  let locker: pg.Client | undefined;

  beforeAll(async () => {
    // A statement timeout far beyond the wait below: only a cancel ends the statement's wait within it.
    server = await startTestServer({
      database,
      env: {
        DATABASE_URL: throughPooler,
        DATABASE_POOLER: "transaction",
        START_BUDGET_MS: "1500",
        DB_STATEMENT_TIMEOUT_MS: "120000",
      },
    });
  });
  afterAll(async () => {
    await locker?.end();
    await server?.stop();
  });

  test("has its statement cancelled on PostgreSQL, not left waiting for a lock", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    // On PostgreSQL itself: the start's write waits for its credit slot behind these locks until it is cancelled.
    locker = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await locker.connect();
    await locker.query("begin");
    try {
      await locker.query("select 1 from quota_slots where account_id = $1 for update", [accountId]);
      const answer = await post(server.url, "/v1/calls/start", apiKey, {
        call_id: "cancelled-1",
        identity_hints: { ani: "+14155550199" },
      });
      expect(answer.status).toBe(503);
      // Within 10 s: without a cancel it would wait for the lock for the whole statement timeout (120 s).
      let waiting = await waitingForLock(locker);
      for (let tries = 0; tries < 100 && waiting > 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        waiting = await waitingForLock(locker);
      }
      console.log(`statements still waiting for the lock after the 503: ${waiting}`);
      expect(waiting).toBe(0);
    } finally {
      await locker.query("rollback");
    }
  });
});

/** Sessions of the test's database, other than `client`'s, waiting for a lock. */
async function waitingForLock(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
  );
  return rows[0]?.n ?? 0;
}

describe("behind PgBouncer 1.18 without DATABASE_POOLER", () => {
  test("start-up stops with one line naming DATABASE_POOLER", async () => {
    const failure = await startTestServer({ database, env: { DATABASE_URL: throughPooler } }).then(
      () => "started",
      (error: Error) => error.message,
    );
    expect(failure).toMatch(
      /^database start-up failed: .*unsupported startup parameter: \S+ .*DATABASE_POOLER=transaction/,
    );
    expect(failure).not.toContain("\n");
  });
});

describe("behind a PgBouncer told to drop the startup parameters, without DATABASE_POOLER", () => {
  let dropping: ThrowawayPgbouncer | undefined;
  afterAll(() => dropping?.stop());

  test("start-up stops with one line: the plan settings do not hold", async () => {
    dropping = await startThrowawayPgbouncer(database.env.DATABASE_URL!, {
      poolMode: "session",
      extra: ["ignore_startup_parameters = options,statement_timeout"],
    });
    const failure = await startTestServer({
      database,
      env: { DATABASE_URL: dropping.urlFor(database.env.DATABASE_URL!) },
    }).then(
      () => "started",
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/^database start-up failed: .*enable_seqscan = on.*DATABASE_POOLER=session/);
    expect(failure).not.toContain("\n");
  });
});
