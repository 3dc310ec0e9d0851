import { type RawBuilder, sql } from "kysely";
import { DomainError } from "../../domain/domain-error.ts";

// A refusal found in the middle of a statement (no credit left, an
// idempotency key already taken) must undo what the statement already wrote:
// the statement raises an error of its own SQLSTATE through refuse_statement()
// (migration 0002), and the store recognises it by that code.

export type RefusalCode = "CC402" | "CC40S" | "CC408" | "CC409";

const PAST_DEADLINE = "CC408";

/** An integer expression that raises `code` when PostgreSQL evaluates it. */
export function refuse(code: RefusalCode, reason: string): RawBuilder<number> {
  return sql`refuse_statement(${code}, ${reason})`;
}

/** Whether `error` is a statement undoing itself with `code`. */
export function isRefusal(error: unknown, code: RefusalCode): boolean {
  return (error as { code?: unknown } | null)?.code === code;
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

/** Runs a call's write; a statement that undid itself at its deadline becomes 503 (nothing was saved). */
export async function withinDeadline<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isRefusal(error, PAST_DEADLINE)) throw error;
    throw new DomainError("unavailable", "Not done within the time budget; nothing was saved, retry later");
  }
}
