import { sql } from "kysely";
import { QUOTA_SLOTS } from "../domain/quota-slots.ts";
import type { MonthlyAllowance, Tier } from "../domain/tiers.ts";
import { allowanceOf, creditsOfAccount, quotaPeriodOf, slotShare } from "./billing/charge.ts";
import type { Db } from "./database.ts";
import type { AccountRow, NewAccountRow } from "./schema.ts";

// Accounts and their monthly credits, which live in the account's quota
// slots (src/store/billing/charge.ts). Each write here is one statement, so an
// account never exists without its slots and a change of credits is never
// seen half done.

/** An account with its credits this period. */
export type AccountWithCredits = AccountRow & { readonly credits: number };

/** The account and its slots, sharing `credits` for the period of `now`, in one statement. */
export async function insertAccount(db: Db, row: NewAccountRow, credits: number): Promise<AccountWithCredits> {
  const { rows } = await sql<AccountRow>`
    with account as (
      insert into accounts (id, name, billing_account_id, tier, created_at)
      values (${row.id}, ${row.name}, ${row.billing_account_id}, ${row.tier}, ${row.created_at})
      returning *
    ),
    slots as (
      insert into quota_slots (account_id, slot, period, remaining)
      select account.id, s, ${quotaPeriodOf(row.created_at)}, ${slotShare(sql`${credits}::int`, sql`s`)}
      from account, generate_series(0, ${sql.lit(QUOTA_SLOTS - 1)}) s
    )
    select * from account
  `.execute(db);
  return { ...rows[0]!, credits };
}

export async function findAccount(
  db: Db,
  id: string,
  now: Date,
  allowance: MonthlyAllowance,
): Promise<AccountWithCredits | undefined> {
  const { rows } = await sql<AccountWithCredits>`
    select accounts.*, ${creditsOfAccount(id, quotaPeriodOf(now), allowance)} as credits
    from accounts where id = ${id}
  `.execute(db);
  return rows[0];
}

export async function countAccounts(db: Db): Promise<number> {
  const row = await db
    .selectFrom("accounts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Shares `credits` over the account's slots for the period of `now`. Every
 * slot's row lock is taken, so a charge in flight either commits before (and
 * is overwritten) or waits and takes its credit from the new count.
 */
export async function setAccountCredits(
  db: Db,
  id: string,
  credits: number,
  now: Date,
): Promise<AccountWithCredits | undefined> {
  const { rows } = await sql<AccountRow>`
    with slots as (
      update quota_slots set remaining = ${slotShare(sql`${credits}::int`, sql`slot`)}, period = ${quotaPeriodOf(now)}
      where account_id = ${id}
      returning 1
    )
    select accounts.* from accounts where id = ${id}
  `.execute(db);
  return rows[0] === undefined ? undefined : { ...rows[0], credits };
}

/**
 * Moves the account to `tier`, whose allowance applies from the next period
 * on: slots not yet renewed this period are renewed first at the old tier's
 * allowance (both writes read the account as it was), so this period's
 * credits still add up to one allowance.
 */
export async function setAccountTier(
  db: Db,
  id: string,
  tier: Tier,
  now: Date,
  allowance: MonthlyAllowance,
): Promise<AccountRow | undefined> {
  const period = quotaPeriodOf(now);
  const { rows } = await sql<AccountRow>`
    with renewed as (
      update quota_slots q set remaining = ${slotShare(allowanceOf(id, allowance), sql`q.slot`)}, period = ${period}
      where q.account_id = ${id} and q.period < ${period}
      returning 1
    )
    update accounts set tier = ${tier} where id = ${id}
    returning *
  `.execute(db);
  return rows[0];
}

/** Sets the account's context retention in days; undefined when no such account. */
export async function setAccountRetention(db: Db, id: string, days: number): Promise<AccountRow | undefined> {
  return db
    .updateTable("accounts")
    .set({ context_retention_days: days })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** Sets the account's repeat window in days; undefined when no such account. */
export async function setAccountRepeatWindow(db: Db, id: string, days: number): Promise<AccountRow | undefined> {
  return db
    .updateTable("accounts")
    .set({ repeat_window_days: days })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** The account's repeat window in days; undefined when no such account. */
export async function repeatWindowOf(db: Db, id: string): Promise<number | undefined> {
  const row = await db.selectFrom("accounts").select("repeat_window_days").where("id", "=", id).executeTakeFirst();
  return row?.repeat_window_days;
}
