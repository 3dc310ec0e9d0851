import { type Kysely, sql } from "kysely";

// Fewer index entries per call. Every start moved its customer's indexed
// last_call_at: a new row version on another page and an entry in both of the
// table's indexes. Unindexed, with room left on each page, it is a HOT update
// (one page, no index entry); the index served only the retention sweep,
// which now reads the table once a pass. The call_start of calls and the
// expires_at of idempotency keys grow with the order rows are written in, so
// a BRIN index serves the sweep as well, and a row written to a range not
// yet summarised costs it nothing (the sweep summarises the new ranges
// itself, so it needs no autovacuum). The fill factor applies to new pages.
const statements = [
  sql`drop index customers_last_call_at`,
  sql`alter table customers set (fillfactor = 90)`,
  sql`drop index calls_call_start`,
  sql`create index calls_call_start on calls using brin (call_start) with (pages_per_range = 16)`,
  sql`drop index idempotency_keys_expires_at`,
  sql`create index idempotency_keys_expires_at on idempotency_keys using brin (expires_at) with (pages_per_range = 16)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index idempotency_keys_expires_at`.execute(db);
  await sql`create index idempotency_keys_expires_at on idempotency_keys (expires_at)`.execute(db);
  await sql`drop index calls_call_start`.execute(db);
  await sql`create index calls_call_start on calls (call_start)`.execute(db);
  await sql`alter table customers reset (fillfactor)`.execute(db);
  await sql`create index customers_last_call_at on customers (last_call_at)`.execute(db);
}
