import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { QUOTA_SLOTS } from "../../src/domain/quota-slots.ts";
import type { MonthlyAllowance } from "../../src/domain/tiers.ts";
import { insertAccount } from "../../src/store/account-repository.ts";
import { takeCredit } from "../../src/store/billing/charge.ts";
import type { Database, Db } from "../../src/store/database.ts";
import { type MigratedTestDatabase, openMigratedTestDatabase } from "../helpers/test-database.ts";

// A charge takes its credit from one slot by key: one index probe and one row,
// however many pages the account's slots have spread over as they were
// updated (docs/limits.md, "Credit slots"). It reads the account's slots only
// when that slot is empty. Rows fetched are counted by the database itself, in
// the charge's own transaction (pg_stat_get_xact_tuples_fetched: rows an index scan fetched, counted on
// the index, and rows a bitmap scan fetched, counted on the table; a session keeps its counts until it
// reports them, so they are read before and after), on either engine.

const OPEN_TIMEOUT_MS = 180_000;
const ALLOWANCE: MonthlyAllowance = { free: 100, starter: 10_000, growth: 100_000, scale: 1_000_000 };
let opened: MigratedTestDatabase;
let database: Database;

beforeAll(async () => {
  opened = await openMigratedTestDatabase();
  database = opened.database;
}, OPEN_TIMEOUT_MS);
afterAll(() => opened?.close());

async function accountWith(credits: number): Promise<string> {
  const id = `acct_charge_${Math.random().toString(36).slice(2, 10)}`;
  const now = new Date();
  await insertAccount(
    database.db,
    { id, name: id, billing_account_id: `ba_${id}`, tier: "growth", created_at: now },
    credits,
  );
  return id;
}

/** The slot rows fetched so far by this session and not yet reported. */
async function slotRowsFetched(db: Db): Promise<number> {
  const { rows } = await sql<{ fetched: string }>`
    select (pg_stat_get_xact_tuples_fetched('quota_slots_pkey'::regclass)
      + pg_stat_get_xact_tuples_fetched('quota_slots'::regclass))::text as fetched
  `.execute(db);
  return Number(rows[0]?.fetched);
}

/** Charges the account once, in a transaction of its own; the slot rows that charge fetched, and its outcome. */
async function chargeOnce(accountId: string) {
  return database.db.transaction().execute(async (trx) => {
    const before = await slotRowsFetched(trx);
    const outcome = await takeCredit(trx, { accountId, allowance: ALLOWANCE }, new Date());
    return { outcome, fetched: (await slotRowsFetched(trx)) - before };
  });
}

describe("a charge", () => {
  test("with credit in every slot reads the one slot it charges, whichever it is", async () => {
    const accountId = await accountWith(1_000);
    for (let i = 0; i < 2 * QUOTA_SLOTS; i++) {
      const { outcome, fetched } = await chargeOnce(accountId);
      expect(outcome).not.toHaveProperty("refused");
      expect(fetched).toBe(1);
    }
  });

  test("whose slot is empty reads the account's slots once to find another, and the credit is still taken", async () => {
    // One credit, in slot 0 alone: a charge keyed to any other slot finds it empty.
    const accountId = await accountWith(1);
    const { outcome, fetched } = await chargeOnce(accountId);
    expect(outcome).toEqual({ creditsLeft: expect.any(Number) });
    expect(fetched).toBeLessThanOrEqual(1 + QUOTA_SLOTS + 1);
    const { rows } = await sql<{ credits: number }>`
      select sum(remaining)::int as credits from quota_slots where account_id = ${accountId}
    `.execute(database.db);
    expect(rows[0]?.credits).toBe(0);
    expect(await chargeOnce(accountId)).toMatchObject({ outcome: { refused: "no_credit" } });
  });
});
