import { type Kysely, sql } from "kysely";

// Retention per account, and the caller's "do not remember".
//
// accounts.context_retention_days: how long a customer is matched and kept after their last call (7 to 365;
// 90, the spec's figure, for every account made before).
//
// forget_me_marks: one row per identifier of a customer who asked not to be remembered. Only a keyed hash
// of the identifier is kept (HMAC-SHA-256 under a pepper stored sealed in settings, src/customers/forget-me-hash.ts),
// with the mark it belongs to, so that lifting the mark by any one identifier lifts all of them.
//
// calls.customer_id becomes nullable: a call from a marked identifier keeps only its billing row (the call_id and
// its times, no customer, no number), which the end closes like any call.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table accounts add column context_retention_days integer not null default 90
      constraint accounts_context_retention_days_range check (context_retention_days between 7 and 365)
  `.execute(db);
  await sql`
    create table forget_me_marks (
      account_id text not null references accounts (id) on delete cascade,
      mode text not null,
      identifier_hash text not null,
      mark_id uuid not null,
      created_at timestamptz not null,
      primary key (account_id, mode, identifier_hash)
    )
  `.execute(db);
  await sql`create index forget_me_marks_mark_id on forget_me_marks (mark_id)`.execute(db);
  await sql`alter table calls alter column customer_id drop not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from calls where customer_id is null`.execute(db);
  await sql`alter table calls alter column customer_id set not null`.execute(db);
  await sql`drop table forget_me_marks`.execute(db);
  await sql`alter table accounts drop column context_retention_days`.execute(db);
}
