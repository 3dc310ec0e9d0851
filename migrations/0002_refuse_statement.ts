import { type Kysely, sql } from "kysely";

// A start and an end are each one statement, so a refusal found in the middle
// of one (no credit left, an idempotency key already taken) must undo what the
// statement already wrote. Raising an error is the only way a statement can
// undo itself; plain SQL cannot raise, so this function does it with a
// SQLSTATE of our own that the store recognises.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function refuse_statement(code text, reason text) returns integer
    language plpgsql volatile as $$
    begin
      raise exception using errcode = code, message = reason;
    end
    $$
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function refuse_statement(text, text)`.execute(db);
}
