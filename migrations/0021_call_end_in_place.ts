import { type Kysely, sql } from "kysely";

// An end wrote its call's new row version on another page, with an entry in
// each of the table's indexes (calls_pkey, calls_customer_id, the BRIN of
// call_start): call_end, which every end sets, was a key of
// calls_customer_summaries. That index now orders a customer's summarised
// calls by their start, which an end never changes, and the table leaves room
// on each page, so an end without a summary is a HOT update (one page, no
// index entry), as a variable saved again is since 0020. An end with a summary
// still adds its entry to the partial index. Half of each page is left free:
// an end makes its row about 1.8 times as long (call_end, the intents), and
// every row of a page is ended, so at 85, 70 and 60 a page ran out of room
// for 35, 18 and 6 % of the ends (test/store/call-end-in-place.test.ts); at 50
// none did. The fill factor applies to new pages.
const statements = [
  sql`drop index calls_customer_summaries`,
  sql`create index calls_customer_summaries on calls (customer_id, call_start desc) where summary is not null`,
  sql`alter table calls set (fillfactor = 50)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table calls reset (fillfactor)`.execute(db);
  await sql`drop index calls_customer_summaries`.execute(db);
  await sql`create index calls_customer_summaries on calls (customer_id, call_end desc) where summary is not null`.execute(
    db,
  );
}
