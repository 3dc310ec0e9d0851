import { type RawBuilder, sql } from "kysely";
import { firstSlotToTry } from "../../domain/quota-slots.ts";
import { type Charge, refuse } from "../calls/call-statement.ts";
import type { Db } from "../engine/database.ts";
import { lastOf } from "../engine/shared-parameters.ts";
import { allowanceOf, periodParameter, slotCredits } from "./quota-slots.ts";

/** The SQLSTATE a statement raises to undo itself when the account has no credit left. */
const NO_CREDIT = "CC402";
/** The SQLSTATE of a statement undone because the slot it chose was emptied meanwhile: run it again. */
const SLOT_EMPTIED = "CC40S";

/**
 * The body of the CTE `charged`: takes one credit from one of the account's
 * slots (renewing it first when a new month has begun) when `when` holds,
 * returning about the credits left, after the writes `afterWrites` names
 * (built once by writesDone). The slot is the first with credit in the
 * statement's snapshot from a random start, so concurrent calls spread over
 * the slots; near zero they all meet on the last ones. A concurrent charge of
 * the same slot waits for its row and re-checks the credit there.
 */
export function chargeCte(
  charge: Charge | undefined,
  now: Date,
  when: RawBuilder<unknown>,
  afterWrites: RawBuilder<boolean>,
): RawBuilder<unknown> {
  if (charge === undefined) return sql`select null::integer as credits_left where false`;
  const accountId = accountParameter(charge);
  const period = periodParameter(now);
  const allowance = allowanceOf(accountId, charge.allowance);
  // The account's slots are read once, in the statement's snapshot, both to choose one and to count the credits
  // of the others; the chosen row is then read again, locked, and its credit checked once more there.
  return sql`
    with slots as materialized (
      select s.slot, ${slotCredits("s", period, allowance)} as credits
      from quota_slots s where s.account_id = ${accountId}
    )
    update quota_slots q set remaining = ${slotCredits("q", period, allowance)} - 1,
      period = greatest(q.period, ${period})
    where q.account_id = ${accountId} and q.slot = (
        select slot from slots where credits > 0
        order by slot >= ${firstSlotToTry()} desc, slot
        limit 1
      )
      and ${slotCredits("q", period, allowance)} > 0 and ${when} and ${afterWrites}
    returning q.remaining + (select coalesce(sum(credits), 0)::int from slots where slot <> q.slot) as credits_left
  `;
}

/** Whether the account had a credit in any slot in the statement's snapshot. */
function hadCredit(charge: Charge, now: Date): RawBuilder<boolean> {
  const accountId = accountParameter(charge);
  return sql<boolean>`exists (select 1 from quota_slots s
    where s.account_id = ${accountId} and ${slotCredits("s", periodParameter(now), allowanceOf(accountId, charge.allowance))} > 0)`;
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
 * was emptied by a concurrent charge.
 */
export function creditsLeftColumn(
  charge: Charge | undefined,
  now: Date,
  when: RawBuilder<unknown>,
): RawBuilder<number | null> {
  if (charge === undefined) return sql`null::integer`;
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
  for (;;) {
    const { rows } = await sql<{ credits_left: number | null; had_credit: boolean }>`
      with charged as (${chargeCte(charge, now, sql`true`, NO_WRITES)})
      select (select credits_left from charged) as credits_left, ${hadCredit(charge, now)} as had_credit
    `.execute(db);
    const { credits_left, had_credit } = rows[0]!;
    if (credits_left !== null) return { creditsLeft: credits_left };
    if (!had_credit) return { refused: "no_credit" };
  }
}
