import { type RawBuilder, sql } from "kysely";
import { firstSlotToTry, QUOTA_SLOTS } from "../../domain/quota-slots.ts";
import { type MonthlyAllowance, TIERS } from "../../domain/tiers.ts";
import { type Charge, lastOf, refuse } from "../calls/call-statement.ts";
import type { Db } from "../database.ts";

// A call's credit, in SQL: the CTEs that take it within the call's own statement, and below them the
// account's credit slots they take it from (the period, a slot's share, the allowance, the credits left), which
// the usage, the rate limit's headers and credits.low read too.

/** The SQLSTATE a statement raises to undo itself when the account has no credit left. */
const NO_CREDIT = "CC402";
/** The SQLSTATE of a statement undone because the slot it chose was emptied meanwhile: run it again. */
const SLOT_EMPTIED = "CC40S";

/** What `credits_left` holds when the charge took its credit from its own slot and read no other. */
export const NOT_COUNTED = -1;

/** The account's monthly allowance, read at most once per statement by the charge's CTEs (chargeCtes). */
const CHARGE_ALLOWANCE = sql<number>`(select credits from charge_allowance)`;
/** Always true, once the writes the charge follows have run (chargeCtes, writesDone). */
const CHARGE_AFTER = sql<boolean>`(select done from charge_after)`;

/**
 * The CTEs `charge_allowance`, `charge_after`, `own_slot`, `other_slot` and
 * `charged`: takes one credit from one of the account's slots (renewing it
 * first when a new month has begun) when `when` holds, after the writes
 * `afterWrites` names (built once by writesDone). `charged` has a row when a
 * credit was taken, its `credits_left` about the credits left, or NOT_COUNTED.
 *
 * The allowance and the wait for the writes are each one CTE that every part
 * of the charge reads (CHARGE_ALLOWANCE, CHARGE_AFTER). PostgreSQL sets up
 * every node of a statement's plan on each execution, run or not: written
 * where each part needs it, the allowance was twelve index scans of
 * `accounts` set up per call, and run only in a month's first calls.
 *
 * The charge goes to one slot by key first, a random one so concurrent calls
 * spread over the slots: one index probe and one row, whatever the account's
 * size and however its slot rows lie in the table. Only when that slot has no
 * credit are the account's slots read, once, in the statement's snapshot, both
 * to choose the first other slot with credit from there and to count the
 * credits of the others; near zero every call meets on the last ones. A
 * concurrent charge of the same slot waits for its row and re-checks the
 * credit there. That second look is in the statement only when the charge
 * asks for it (`fromAnySlot`, a write's second run): it is twenty-odd plan
 * nodes that PostgreSQL sets up on every execution and that run only once a
 * slot is empty, near the end of the month's credit.
 */
export function chargeCtes(
  charge: Charge | undefined,
  now: Date,
  when: RawBuilder<unknown>,
  afterWrites: RawBuilder<boolean>,
): RawBuilder<unknown> {
  if (charge === undefined) return sql`charged as (select null::integer as credits_left where false)`;
  const accountId = accountParameter(charge);
  const period = periodParameter(now);
  const ownSlot = sql.val(firstSlotToTry());
  const take = sql`remaining = ${slotCredits("q", period, CHARGE_ALLOWANCE)} - 1, period = greatest(q.period, ${period})`;
  const ownSlotCtes = sql`
    charge_allowance as (select ${allowanceOf(accountId, charge.allowance)} as credits),
    charge_after as (select ${afterWrites} as done),
    own_slot as (
      update quota_slots q set ${take}
      where q.account_id = ${accountId} and q.slot = ${ownSlot}
        and ${slotCredits("q", period, CHARGE_ALLOWANCE)} > 0 and ${when} and ${CHARGE_AFTER}
      returning 1
    )`;
  if (charge.fromAnySlot !== true) {
    return sql`${ownSlotCtes},
    charged as (select ${sql.lit(NOT_COUNTED)}::integer as credits_left from own_slot)`;
  }
  return sql`${ownSlotCtes},
    other_slot as (
      with slots as materialized (
        select s.slot, ${slotCredits("s", period, CHARGE_ALLOWANCE)} as credits
        from quota_slots s
        where s.account_id = ${accountId} and not exists (select 1 from own_slot) and ${when}
      )
      update quota_slots q set ${take}
      where q.account_id = ${accountId} and q.slot = (
          select slot from slots where credits > 0 and slot <> ${ownSlot}
          order by slot > ${ownSlot} desc, slot
          limit 1
        )
        and ${slotCredits("q", period, CHARGE_ALLOWANCE)} > 0 and ${when} and ${CHARGE_AFTER}
      returning q.remaining + (select coalesce(sum(credits), 0)::int from slots where slot <> q.slot) as credits_left
    ),
    charged as (
      select ${sql.lit(NOT_COUNTED)}::integer as credits_left from own_slot
      union all
      select credits_left from other_slot
    )
  `;
}

/** Whether the account had a credit in any slot in the statement's snapshot (a statement with chargeCtes). */
function hadCredit(charge: Charge, now: Date): RawBuilder<boolean> {
  const accountId = accountParameter(charge);
  return sql<boolean>`exists (select 1 from quota_slots s
    where s.account_id = ${accountId} and ${slotCredits("s", periodParameter(now), CHARGE_ALLOWANCE)} > 0)`;
}

/** The charged account as one parameter of every part of the statement that names it (compileOnce). */
const accountParameter = lastOf((charge: Charge): RawBuilder<string> => sql.val(charge.accountId));

/**
 * Always true, but PostgreSQL can evaluate it only once the named
 * data-modifying CTEs (each with a RETURNING clause) have run: a CTE runs
 * when its rows are first read, and otherwise after the statement's query.
 * The slot is locked after the call's other writes and held only for the
 * commit. Built once per statement, at load: the names are the code's own.
 */
export function writesDone(...names: readonly string[]): RawBuilder<boolean> {
  if (names.length === 0) return sql`true`;
  return sql.raw(`${names.map((name) => `(select count(*) from ${name})`).join(" + ")} >= 0`);
}

/** For a charge that follows no write of its own statement. */
export const NO_WRITES = writesDone();

/**
 * A column with about the credits left after the charge. When `when` held
 * but no credit was taken, it raises instead, and the whole statement is
 * undone: NO_CREDIT when no slot had any (the account is at zero, since
 * credits only go down within a period), SLOT_EMPTIED when the chosen slot
 * was emptied by a concurrent charge, or, for a charge not `fromAnySlot`,
 * whenever its random slot had none.
 */
export function creditsLeftColumn(
  charge: Charge | undefined,
  now: Date,
  when: RawBuilder<unknown>,
): RawBuilder<number | null> {
  if (charge === undefined) return sql`null::integer`;
  if (charge.fromAnySlot !== true) {
    return sql`case when ${when} then coalesce((select credits_left from charged),
      ${refuse(SLOT_EMPTIED, "credit slot empty")}) end`;
  }
  return sql`case when ${when} then coalesce((select credits_left from charged),
    case when ${hadCredit(charge, now)} then ${refuse(SLOT_EMPTIED, "credit slot emptied meanwhile")}
    else ${refuse(NO_CREDIT, "no credit left")} end) end`;
}

/**
 * Bills an operation whose writes need no statement of their own to commit
 * with (a read), or that runs in a transaction (`db` is then the
 * transaction): one credit, with about the credits left, or no_credit. It
 * raises nothing in the database, so a transaction survives a slot emptied
 * meanwhile and tries again with a fresh snapshot.
 */
export async function takeCredit(
  db: Db,
  charge: Charge | undefined,
  now: Date,
): Promise<{ readonly creditsLeft: number | null } | { readonly refused: "no_credit" }> {
  if (charge === undefined) return { creditsLeft: null };
  // Its own statement, rare on a call's path: it looks past an empty slot at once rather than run twice.
  const anySlot = { ...charge, fromAnySlot: true };
  for (;;) {
    const { rows } = await sql<{ credits_left: number | null; had_credit: boolean }>`
      with ${chargeCtes(anySlot, now, sql`true`, NO_WRITES)}
      select c.credits_left, case when c.credits_left is null then ${hadCredit(anySlot, now)} end as had_credit
      from (select (select credits_left from charged) as credits_left) c
    `.execute(db);
    const { credits_left, had_credit } = rows[0]!;
    if (credits_left !== null) return { creditsLeft: credits_left };
    if (!had_credit) return { refused: "no_credit" };
  }
}

// The SQL of an account's credit slots (migration 0007). A slot whose period
// is older than the current one holds its share of the allowance: renewal is
// lazy, per slot, and the shares add up to the allowance exactly.

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
