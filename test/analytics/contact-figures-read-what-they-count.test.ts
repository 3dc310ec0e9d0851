import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { countEndedCalls, SETTLE_MS } from "../../src/jobs/contact-figures-job.ts";
import type { Db } from "../../src/store/database.ts";
import { startCountedServer } from "../helpers/counted-server.ts";
import {
  cheaperOfTwoRuns,
  indexScans,
  NO_BACKGROUND_JOBS,
  readTableBlocksTouched,
  relationPages,
  scansBetween,
} from "../helpers/database-measures.ts";
import { createAccountWithKey, startAndEndCall } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// The contact figures' job reads the ends it counts, not the day of calls around them (docs/analytics.md, "How
// the figures are kept"): a batch counting a few calls costs the same beside 40,000 calls ended in the last day,
// already counted, as beside none. And the queue it takes them from does not grow with the ends it ever held,
// with no autovacuum (the embedded database has none; this machine's PostgreSQL runs without).

const ENDED = 12;
const EARLIER_CALLS = 40_000;

describe("a batch of the contact figures", () => {
  let server: TestServer;
  let db: Db;
  let apiKey: string;
  let alone: { blocks: number; counted: number };
  let beside: { blocks: number; counted: number };
  let pagesAdded: number;

  beforeAll(async () => {
    // The test runs the job itself, on the service's one connection (its plans made once); the service's own pass
    // stays out of the way.
    ({ server, db } = await startCountedServer());
    const account = await createAccountWithKey(server.url);
    apiKey = account.apiKey;
    alone = await cheaperOfTwoRuns(endAndCount);
    const pagesBefore = await relationPages(db, "calls");
    // A day of calls already counted: one caller's, ended, started over the last 20 hours.
    const { rows } = await sql<{
      id: string;
    }>`select id from customers where account_id = ${account.accountId} limit 1`.execute(db);
    await sql`
      insert into calls (account_id, mode, call_id, customer_id, call_start, call_end)
      select ${account.accountId}, 'test', 'earlier-' || i, ${rows[0]?.id}::uuid,
        now() - i * interval '1.8 seconds', now() - i * interval '1.8 seconds' + interval '1 minute'
      from generate_series(1, ${EARLIER_CALLS}) as i`.execute(db);
    pagesAdded = (await relationPages(db, "calls")) - pagesBefore;
    beside = await cheaperOfTwoRuns(endAndCount);
  }, 300_000);
  afterAll(() => server?.stop());

  async function endAndCount(): Promise<{ blocks: number; counted: number }> {
    for (let i = 0; i < ENDED; i++) await startAndEndCall(server.url, apiKey, { ani: `+1415555${1000 + i}` });
    const before = await readTableBlocksTouched(db);
    const result = await countEndedCalls(db, new Date(Date.now() + SETTLE_MS), 1000);
    const blocks = (await readTableBlocksTouched(db)) - before;
    return { blocks, counted: result?.counted ?? Number.NaN };
  }

  test("counts the calls just ended, and only those", () => {
    expect(alone.counted).toBe(ENDED);
    expect(beside.counted).toBe(ENDED);
  });

  test("touches at most 1.5 times the blocks beside a day of calls as beside none", () => {
    const detail = JSON.stringify({ alone, beside, pagesAdded });
    expect(pagesAdded, detail).toBeGreaterThan(500);
    expect(beside.blocks, detail).toBeLessThanOrEqual(1.5 * alone.blocks);
  });
});

describe("the contact figures' queue, with the service's own job counting", () => {
  // The clock moves a second a call, and past the settling time after the last: the job takes each round at its
  // next pass.
  const clock = createManualClock();
  let server: TestServer;
  let db: Db;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer({ clock, env: { ...NO_BACKGROUND_JOBS, CONTACT_FIGURES_INTERVAL_MS: "1000" } });
    db = server.context.database.db;
    apiKey = (await createAccountWithKey(server.url)).apiKey;
  }, 60_000);
  afterAll(() => server?.stop());

  /** Ends `count` calls, then waits until the job has taken every end off the queue and vacuumed it. */
  async function endAndDrain(count: number): Promise<void> {
    const vacuumsBefore = await queueVacuums();
    for (let i = 0; i < count; i++) {
      await startAndEndCall(server.url, apiKey, { ani: `+1415556${1000 + i}` });
      clock.advance(1000);
    }
    clock.advance(SETTLE_MS);
    for (;;) {
      const { rows } = await sql<{ queued: string }>`
        select count(*)::text as queued from contact_figures_queue`.execute(db);
      if (rows[0]?.queued === "0" && (await queueVacuums()) > vacuumsBefore) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function queueVacuums(): Promise<number> {
    const { rows } = await sql<{ vacuums: string }>`
      select vacuum_count::text as vacuums from pg_stat_user_tables where relname = 'contact_figures_queue'`.execute(
      db,
    );
    return Number(rows[0]?.vacuums ?? 0);
  }

  test("takes no more room after five rounds of ends than one round's ends would", async () => {
    // 600 ends in all, about 80 to a page of the queue: kept, they would take 8 pages.
    for (let round = 0; round < 5; round++) await endAndDrain(120);
    expect(await relationPages(db, "contact_figures_queue")).toBeLessThanOrEqual(3);
  }, 300_000);
});

describe("a batch counting known callers' calls", () => {
  // Each caller's figures (their last call, each intent's issue) exist from their first call: the batch that
  // counts their second writes them back where it loaded them, by ctid, not by an upsert checking the primary key.
  const CALLERS = 6;
  const FIGURES_TABLES = ["contact_figures_callers", "contact_figures_issues"];
  let server: TestServer;
  let db: Db;
  let saves: Map<string, number>;

  beforeAll(async () => {
    ({ server, db } = await startCountedServer());
    const { apiKey } = await createAccountWithKey(server.url);
    const end = { intent: "billing_question", intent_status: "open" };
    const round = async () => {
      for (let n = 0; n < CALLERS; n++) await startAndEndCall(server.url, apiKey, { ani: `+1415554${1000 + n}` }, end);
      const before = await indexScans(db, FIGURES_TABLES);
      const result = await countEndedCalls(db, new Date(Date.now() + SETTLE_MS), 1000);
      expect(result?.counted).toBe(CALLERS);
      return scansBetween(before, await indexScans(db, FIGURES_TABLES));
    };
    await round();
    saves = await round();
  }, 120_000);
  afterAll(() => server?.stop());

  test("descends the figures' primary keys only to load them: at most once per customer", () => {
    // PostgreSQL 15 counts a scan of `= any(…)` once per element, PGlite's PostgreSQL 17 once. An upsert's check
    // would add one scan per row written back (7 and 12 here).
    const detail = JSON.stringify(Object.fromEntries(saves));
    expect(saves.get("contact_figures_callers_pkey"), detail).toBeLessThanOrEqual(CALLERS);
    expect(saves.get("contact_figures_issues_pkey"), detail).toBeLessThanOrEqual(CALLERS);
  });
});
