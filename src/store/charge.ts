import { type RawBuilder, sql } from "kysely";
import { DomainError } from "../domain/domain-error.ts";
import { creditsThisPeriod, type MonthlyAllowance, quotaPeriodOf } from "./account-repository.ts";
import type { Db } from "./database.ts";
import { isRefusal, refuse } from "./refusal.ts";

/**
 * The bill of one operation, taken by the operation's own statement: the
 * credit is spent only if the operation's writes commit, and an operation
 * that finds no credit left writes nothing. The quota guard hands one to the
 * store and learns the outcome through the callbacks.
 */
export interface Charge {
  readonly accountId: string;
  readonly allowance: MonthlyAllowance;
  /** The operation committed and took a credit; this many are left. */
  charged(creditsLeft: number): void;
  /** There was no credit left: the operation wrote nothing. */
  refused(): void;
}

/** The SQLSTATE a statement raises to undo itself when no credit is left. */
const NO_CREDIT = "CC402";

/**
 * The body of the CTE `charged`: takes one credit (renewing the quota first
 * when a new month has begun) when `when` holds, returning the credits left,
 * after the CTEs named in `afterWrites` (each with a RETURNING clause).
 * A concurrent charge of the same account waits for the row and re-checks
 * the credit, so PostgreSQL orders every use of the quota, across instances.
 */
export function chargeCte(
  charge: Charge | undefined,
  now: Date,
  when: RawBuilder<unknown>,
  afterWrites: readonly string[],
): RawBuilder<unknown> {
  if (charge === undefined) return sql`select null::integer as quota_remaining where false`;
  const period = quotaPeriodOf(now);
  const credits = creditsThisPeriod(period, charge.allowance);
  return sql`
    update accounts set quota_remaining = ${credits} - 1, quota_period = ${period}
    where id = ${charge.accountId} and ${credits} > 0 and ${when} and ${writesDone(afterWrites)}
    returning quota_remaining
  `;
}

/**
 * Always true, but PostgreSQL can evaluate it only once the named
 * data-modifying CTEs have run (a CTE runs when its rows are first read, and
 * otherwise after the statement's query). Every call of an account waits for
 * the account's row, so it is locked after the call's other writes and held
 * only for the commit.
 */
function writesDone(names: readonly string[]): RawBuilder<boolean> {
  if (names.length === 0) return sql`true`;
  return sql.raw(`${names.map((name) => `(select count(*) from ${name})`).join(" + ")} >= 0`);
}

/**
 * A column with the credits left after the charge. When `when` held but no
 * credit was taken, it raises instead, and the whole statement is undone.
 */
export function creditsLeftColumn(charge: Charge | undefined, when: RawBuilder<unknown>): RawBuilder<number | null> {
  if (charge === undefined) return sql`null::integer`;
  return sql`case when ${when} then
    coalesce((select quota_remaining from charged), ${refuse(NO_CREDIT, "no credit left")}) end`;
}

/** Tells the charge what its statement did. */
export function settleCharge(charge: Charge | undefined, creditsLeft: number | null): void {
  if (charge !== undefined && creditsLeft !== null) charge.charged(creditsLeft);
}

/**
 * Runs an operation's statements; a statement undone for want of credit
 * becomes the domain's refusal, after telling the charge.
 */
export async function refusedWithoutCredit<T>(charge: Charge | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isRefusal(error, NO_CREDIT)) throw error;
    charge?.refused();
    throw new DomainError("resource_exhausted", "Monthly quota exhausted");
  }
}

/**
 * Bills an operation whose writes need no statement of their own to commit
 * with (a read), or that runs in a transaction (`db` is then the
 * transaction): one credit, or the domain's refusal when none is left.
 */
export async function takeCredit(db: Db, charge: Charge | undefined, now: Date): Promise<void> {
  if (charge === undefined) return;
  await refusedWithoutCredit(charge, async () => {
    const { rows } = await sql<{ credits_left: number | null }>`
      with charged as (${chargeCte(charge, now, sql`true`, [])})
      select ${creditsLeftColumn(charge, sql`true`)} as credits_left
    `.execute(db);
    settleCharge(charge, rows[0].credits_left);
  });
}
