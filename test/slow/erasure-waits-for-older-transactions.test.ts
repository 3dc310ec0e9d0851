import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createErasureCompaction } from "../../src/jobs/erasure-compaction.ts";
import { callerWithTexts, filesHolding, tableFiles } from "../helpers/erased-files.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// A transaction open in another database of the same PostgreSQL server (DATABASE_URL's own, beside the servers'
// fresh ones) that has a transaction id: while it runs, every snapshot counts it as running, so a vacuum keeps the
// versions an erasure deleted after it began. The vacuum after an erasure waits for it to end, says so when it
// waits long, and gives the wait up on close. PostgreSQL only: the embedded database has one session.

const base = process.env.DATABASE_URL;
let holder: pg.Client | undefined;

/** Begins a transaction with an id in DATABASE_URL's database, kept open until `commitHolder`. */
async function holdTransaction(): Promise<void> {
  if (!base) throw new Error("this suite needs PostgreSQL: set DATABASE_URL");
  holder = new pg.Client({ connectionString: base });
  await holder.connect();
  await holder.query("begin");
  await holder.query("select pg_current_xact_id()");
}

async function commitHolder(): Promise<void> {
  await holder?.query("commit");
  await holder?.end();
  holder = undefined;
}

afterEach(commitHolder);

describe("the vacuum after an erasure, on a server where an older transaction runs", () => {
  let server: TestServer;
  let apiKey: string;

  beforeAll(async () => {
    // FULL rewrites the tables, so what the rewritten files hold is exactly what the vacuum kept.
    server = await startTestServer({ env: { ERASURE_VACUUM: "full", ERASURE_VACUUM_QUIET_MS: "200" } });
    apiKey = (await createAccountWithKey(server.url)).apiKey;
  }, 60_000);
  afterAll(() => server?.stop());

  test("waits for it to end, then leaves the erased data in no table file", async () => {
    const erased = await callerWithTexts(server, apiKey, 0);
    const kept = await callerWithTexts(server, apiKey, 1);
    await sql`checkpoint`.execute(server.context.database.db);
    await holdTransaction();

    await server.context.erasures.idle();
    const before = server.context.erasures.runs();
    const answer = await request(server.url, "DELETE", `/v1/customers/${erased.ref}`, { token: apiKey });
    expect(answer.status).toBe(200);
    let settled = false;
    const idle = server.context.erasures.idle().then(() => {
      settled = true;
    });
    while (server.context.erasures.runs() === before) await sleep(20);
    // Long enough for a run that does not wait to vacuum and checkpoint these few rows many times over.
    await sleep(2_000);
    expect(settled).toBe(false);

    await commitHolder();
    await idle;
    const files = await tableFiles(server);
    for (const text of erased.texts) expect(await filesHolding(files, text)).toEqual([]);
    // The search reads the right files: the caller not erased is still in them.
    for (const text of kept.texts) expect(await filesHolding(files, text)).not.toEqual([]);
  }, 60_000);
});

describe("the erasure compaction job held back", () => {
  let store: MigratedTestDatabase;

  beforeAll(async () => {
    store = await openMigratedTestDatabase();
  }, 60_000);
  afterAll(() => store?.close());

  test("says so once after heldBackWarningMs, and a close gives the wait up", async () => {
    await holdTransaction();
    const told: number[] = [];
    const errors: unknown[] = [];
    const job = createErasureCompaction(store.database.db, {
      vacuum: "plain",
      quietMs: 0,
      heldBackWarningMs: 300,
      onHeldBack: (waitedMs) => told.push(waitedMs),
      onError: (error) => errors.push(error),
    });
    // A transaction of this database that commits after the holder began, as an erasure's delete would.
    await sql`select pg_current_xact_id()`.execute(store.database.db);
    job.request();
    while (told.length === 0) await sleep(20);
    // Held back three warning periods in all: told once, not once a period.
    await sleep(600);
    expect(told).toHaveLength(1);
    expect(told[0]).toBeGreaterThanOrEqual(300);

    // The holder is still open: the close ends the wait rather than waiting for it.
    await job.close();
    expect(holder).toBeDefined();
    expect(job.runs()).toBe(1);
    expect(errors).toEqual([]);
  }, 30_000);
});
