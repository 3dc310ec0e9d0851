import { type RawBuilder, sql } from "kysely";

// A refusal found in the middle of a statement (no credit left, an
// idempotency key already taken) must undo what the statement already wrote:
// the statement raises an error of its own SQLSTATE through refuse_statement()
// (migration 0002), and the store recognises it by that code.

export type RefusalCode = "CC402" | "CC409";

/** An integer expression that raises `code` when PostgreSQL evaluates it. */
export function refuse(code: RefusalCode, reason: string): RawBuilder<number> {
  return sql`refuse_statement(${code}, ${reason})`;
}

/** Whether `error` is a statement undoing itself with `code`. */
export function isRefusal(error: unknown, code: RefusalCode): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}
