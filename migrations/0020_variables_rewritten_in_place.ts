import { type Kysely, sql } from "kysely";

// A variable an end saves again was a new row version on another page with an
// entry in both of the table's indexes: its expires_at, which every save
// moves, was indexed for the sweep alone. Unindexed, with room left on each
// page, the save is a HOT update (one page, no index entry), as the start's
// move of customers.last_call_at is since 0008; the sweep now reads the table
// for expired variables, as it does for stale customers. The fill factor
// applies to new pages.
const statements = [sql`drop index variables_expires_at`, sql`alter table variables set (fillfactor = 90)`];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table variables reset (fillfactor)`.execute(db);
  await sql`create index variables_expires_at on variables (expires_at)`.execute(db);
}
