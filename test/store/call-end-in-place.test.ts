import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { insertAccount } from "../../src/store/account-repository.ts";
import type { Database } from "../../src/store/database.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// An end rewrites its call's row in place (a HOT update: one page, no index
// entry) when it saves no summary: no index of calls holds a column an end
// changes (calls_customer_summaries is keyed on the start, migration 0021), and
// the table's pages keep room for the new versions. Counted by the database
// itself on the one connection that wrote them (updated, and HOT-updated, rows
// reported plus those the session still holds), on either engine.

const OPEN_TIMEOUT_MS = 180_000;
const CALLS = 200;
/** The share of ends that must be HOT (see below). */
const HOT_AT_LEAST = 0.75;
/** Rounds of ends tried before judging (see below). */
const ROUNDS = 8;
let opened: MigratedTestDatabase;
let database: Database;

beforeAll(async () => {
  opened = await openMigratedTestDatabase({ DB_POOL_SIZE: "1" });
  database = opened.database;
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

async function callUpdates(): Promise<{ updated: number; hot: number }> {
  const { rows } = await sql<{ updated: string; hot: string }>`
    select (pg_stat_get_tuples_updated('calls'::regclass) + pg_stat_get_xact_tuples_updated('calls'::regclass))::text
        as updated,
      (pg_stat_get_tuples_hot_updated('calls'::regclass) + pg_stat_get_xact_tuples_hot_updated('calls'::regclass))::text
        as hot
  `.execute(database.db);
  return { updated: Number(rows[0]?.updated), hot: Number(rows[0]?.hot) };
}

/** Starts CALLS calls as starts write them (filling pages one after another), ends them one by one, and counts. */
async function endRound(round: number, now: Date): Promise<{ updated: number; hot: number }> {
  const db = database.db;
  await sql`
    insert into calls (account_id, mode, call_id, customer_id, call_start, call_end, ani)
    select 'acct_ends', 'test', ${`r${round}-call-`} || n, '00000000-0000-4000-8000-000000000001', ${now}, null,
      '+14155550100'
    from generate_series(1, ${CALLS}) n
  `.execute(db);
  const before = await callUpdates();
  for (let n = 1; n <= CALLS; n++) {
    // The columns an end sets (record-end.ts), the customer unchanged, in a statement of its own.
    await sql`
      update calls set call_end = ${new Date()}, customer_id = customer_id, summary = null,
        intents = '[{"intent":"billing_question","status":"resolved"}]'::jsonb
      where account_id = 'acct_ends' and mode = 'test' and call_id = ${`r${round}-call-${n}`} and call_end is null
    `.execute(db);
  }
  const after = await callUpdates();
  return { updated: after.updated - before.updated, hot: after.hot - before.hot };
}

describe("an end without a summary", () => {
  test(`rewrites its call in place: ${CALLS} calls started together, then ended one by one, HOT`, async () => {
    const now = new Date();
    await insertAccount(
      database.db,
      { id: "acct_ends", name: "Ends", billing_account_id: "ba_ends", tier: "growth", created_at: now },
      1000,
    );
    await sql`insert into customers (id, account_id, mode, created_at, last_call_at)
      values ('00000000-0000-4000-8000-000000000001', 'acct_ends', 'test', ${now}, ${now})`.execute(database.db);
    // Once a page's free room is used, an end finds room only by pruning the dead versions before it, and a page
    // is pruned only when no other process holds it. On a server busy with other work the checkpointer and the
    // background writer hold pages often (every dropped database asks for a checkpoint), so one round of ends
    // there made 120 of 200 HOT and the next 165, and three rounds in a row made at most 135 once; a quiet server
    // makes 200. The best of up to eight rounds is judged, each on fresh rows.
    // A broken rule fails every round: with call_end a key of an index none is HOT, at a fill factor of 85 at most 140.
    const rounds: { updated: number; hot: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const counted = await endRound(round, now);
      expect(counted.updated).toBe(CALLS);
      rounds.push(counted);
      if (counted.hot >= HOT_AT_LEAST * CALLS) break;
    }
    expect(Math.max(...rounds.map((counted) => counted.hot))).toBeGreaterThanOrEqual(HOT_AT_LEAST * CALLS);
  });
});
