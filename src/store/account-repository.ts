import { sql } from "kysely";
import { TIERS, type Tier } from "../domain/tiers.ts";
import type { Db } from "./database.ts";
import type { AccountRow, NewAccountRow } from "./schema.ts";

// Accounts and their monthly quota. The quota is one counter per account,
// changed only by single UPDATE statements, so PostgreSQL orders every
// concurrent use of it, across instances.

export type MonthlyAllowance = Readonly<Record<Tier, number>>;

/** "2026-11": the quota period a moment belongs to (UTC months). */
export function quotaPeriodOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

export async function insertAccount(db: Db, row: NewAccountRow): Promise<AccountRow> {
  return db.insertInto("accounts").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function countAccounts(db: Db): Promise<number> {
  const row = await db
    .selectFrom("accounts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateAccount(
  db: Db,
  id: string,
  changes: { tier?: Tier; quota_remaining?: number; quota_period?: string },
): Promise<AccountRow | undefined> {
  return db.updateTable("accounts").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
}

/**
 * The credits an account has this period: a stored count from an earlier
 * month means a full allowance. The tiers and their allowances are
 * parameters, from the one list in src/domain/tiers.ts.
 */
export function creditsThisPeriod(period: string, allowance: MonthlyAllowance) {
  const allowances = sql.join(
    TIERS.map((tier) => sql`when ${tier} then ${allowance[tier]}::int`),
    sql` `,
  );
  return sql<number>`(case when quota_period = ${period} then quota_remaining else (case tier ${allowances} end) end)`;
}

export async function creditsLeft(db: Db, accountId: string, now: Date, allowance: MonthlyAllowance): Promise<number> {
  const row = await db
    .selectFrom("accounts")
    .select(creditsThisPeriod(quotaPeriodOf(now), allowance).as("credits"))
    .where("id", "=", accountId)
    .executeTakeFirst();
  return row?.credits ?? 0;
}
