import { type RawBuilder, sql } from "kysely";
import { QUOTA_SLOTS } from "../../domain/quota-slots.ts";
import { TIERS, type Tier } from "../../domain/tiers.ts";
import type { Db } from "../database.ts";
import { lastOf } from "../shared-parameters.ts";

// The SQL of an account's credit slots (migration 0007). A slot whose period
// is older than the current one holds its share of the allowance: renewal is
// lazy, per slot, and the shares add up to the allowance exactly.

export type MonthlyAllowance = Readonly<Record<Tier, number>>;

const SLOTS = sql.lit(QUOTA_SLOTS);

/** "2026-11": the quota period a moment belongs to (UTC months). */
export function quotaPeriodOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** The quota period of `now` as one parameter of every part of a statement that names it (compileOnce). */
export const periodParameter = lastOf((now: Date): RawBuilder<string> => sql.val(quotaPeriodOf(now)));

/** Slot `slot`'s share of `credits`: shares differ by at most one and add up to `credits`. */
export function slotShare(credits: RawBuilder<unknown>, slot: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`(${credits} / ${SLOTS} + (${slot} < ${credits} % ${SLOTS})::int)`;
}

/**
 * The account's monthly allowance as a value: a subquery that PostgreSQL runs
 * at most once per statement (an InitPlan), and only when a slot is renewed,
 * never once per slot row as a joined table may be (the join's order is the
 * planner's choice, and turned on the tables' statistics). The tiers and
 * their allowances are written into the text (src/domain/tiers.ts and the
 * configuration), not parameters: the same on every call.
 */
export function allowanceOf(accountId: string | RawBuilder<string>, allowance: MonthlyAllowance): RawBuilder<number> {
  return sql<number>`(select ${tierAllowance(sql`tier`, allowance)} from accounts where id = ${accountId})`;
}

/** The monthly allowance of the tier in column `tier`. */
export function tierAllowance(tier: RawBuilder<unknown>, allowance: MonthlyAllowance): RawBuilder<number> {
  return sql<number>`(case ${tier} ${allowanceCases(allowance)} end)`;
}

/** Built once per allowance (the configuration's): literals, so the text depends on the configuration only. */
const casesByAllowance = new WeakMap<MonthlyAllowance, RawBuilder<unknown>>();

function allowanceCases(allowance: MonthlyAllowance): RawBuilder<unknown> {
  let cases = casesByAllowance.get(allowance);
  if (cases === undefined) {
    cases = sql.join(
      TIERS.map((name) => sql`when ${sql.lit(name)} then ${sql.lit(Math.trunc(allowance[name]))}::int`),
      sql` `,
    );
    casesByAllowance.set(allowance, cases);
  }
  return cases;
}

/** The aliases the statements give a slot row. */
type SlotAlias = "q" | "s";
// Built once: every charge names them, and a reference built per call was a measurable share of a call's allocations.
const SLOT_ROWS: Readonly<Record<SlotAlias, RawBuilder<unknown>>> = {
  q: sql.ref("q"),
  s: sql.ref("s"),
};

/**
 * The credits of slot row `slot` in `period`, given the allowance: a slot
 * stored for a later period (another instance's clock is ahead) keeps its count.
 */
export function slotCredits(
  slot: SlotAlias,
  period: string | RawBuilder<string>,
  allowance: RawBuilder<unknown>,
): RawBuilder<number> {
  const row = SLOT_ROWS[slot];
  return sql<number>`(case when ${row}.period >= ${period} then ${row}.remaining
    else ${slotShare(allowance, sql`${row}.slot`)} end)`;
}

/** The account's credits this period: the sum of its slots. */
export function creditsOfAccount(accountId: string, period: string, allowance: MonthlyAllowance): RawBuilder<number> {
  return sql<number>`(select coalesce(sum(${slotCredits("s", period, allowanceOf(accountId, allowance))}), 0)::int
    from quota_slots s where s.account_id = ${accountId})`;
}

export async function creditsLeft(db: Db, accountId: string, now: Date, allowance: MonthlyAllowance): Promise<number> {
  const { rows } = await sql<{ credits: number }>`
    select ${creditsOfAccount(accountId, quotaPeriodOf(now), allowance)} as credits
  `.execute(db);
  return rows[0]?.credits ?? 0;
}
