import { type Kysely, sql } from "kysely";

// What a call was about, and variables only a verified caller hears.
//
// calls.summary: the summary the call's end sent (or the platform's own, for
// an integration); calls.intents: the intents that end saved, as
// [{intent, status}]. Both null until the call ends with them, and cleared
// when a call_id is started again. They live as long as the call row (the
// retention sweep deletes calls 30 days after they started).
//
// calls_customer_summaries serves start and identify, which read a customer's
// latest summaries in the statement that records the call: a partial index,
// so only calls that ended with a summary carry an entry, and the read stops
// after the few it returns however many calls the customer made.
//
// variables.requires_verification: shared only with a verified caller
// (docs/identity.md). A constant default: no table rewrite.
const statements = [
  sql`alter table calls add column summary text, add column intents jsonb`,
  sql`create index calls_customer_summaries on calls (customer_id, call_end desc) where summary is not null`,
  sql`alter table variables add column requires_verification boolean not null default false`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table variables drop column requires_verification`.execute(db);
  await sql`drop index calls_customer_summaries`.execute(db);
  await sql`alter table calls drop column summary, drop column intents`.execute(db);
}
