import { type RawBuilder, sql } from "kysely";

// A refusal found in the middle of a statement (no credit left, an
// idempotency key already taken) must undo what the statement already wrote:
// the statement raises an error of its own SQLSTATE through refuse_statement()
// (migration 0002), and the store recognises it by that code and reports it
// as a value. What a refusal means to the caller is the use case's to decide.

export type RefusalCode = "CC402" | "CC40S" | "CC408" | "CC409";

/** Why a call's statement undid itself: no credit left, its credit slot emptied meanwhile, or past its deadline. */
export type StatementRefusal = "no_credit" | "slot_emptied" | "past_deadline";

export interface Refused {
  readonly refused: StatementRefusal;
}

const REFUSALS: ReadonlyMap<unknown, StatementRefusal> = new Map<RefusalCode, StatementRefusal>([
  ["CC402", "no_credit"],
  ["CC40S", "slot_emptied"],
  ["CC408", "past_deadline"],
]);

const PAST_DEADLINE = "CC408";

/** An integer expression that raises `code` when PostgreSQL evaluates it. */
export function refuse(code: RefusalCode, reason: string): RawBuilder<number> {
  return sql`refuse_statement(${code}, ${reason})`;
}

/** Whether `error` is a statement undoing itself with `code`. */
export function isRefusal(error: unknown, code: RefusalCode): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}

/** Runs a call's statement; one that undid itself for want of credit or time is reported as such. */
export async function refusedAsValue<T>(work: () => Promise<T>): Promise<T | Refused> {
  try {
    return await work();
  } catch (error) {
    const refused = REFUSALS.get((error as { code?: unknown } | null)?.code);
    if (refused === undefined) throw error;
    return { refused };
  }
}

/**
 * A column that undoes the statement when PostgreSQL reaches it after
 * `deadline` (epoch ms, real time). Placed last, it runs after the statement
 * waited for any lock, so a call whose budget ran out while it waited cannot
 * commit later; the guard cancels the statement at the deadline and answers
 * with its outcome (see write-to-outcome.ts).
 */
export function deadlineColumn(deadline: number | undefined): RawBuilder<unknown> {
  if (deadline === undefined) return sql`null`;
  return sql`case when clock_timestamp() > ${new Date(deadline)}::timestamptz then ${refuse(PAST_DEADLINE, "past the deadline")} end`;
}
