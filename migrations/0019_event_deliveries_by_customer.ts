import { type Kysely, sql } from "kysely";

// An erasure deletes the erased customer's events from the outbox and the
// delivery log, delivered or not (src/store/customer-changes.ts). It finds
// them by ordering_key, which every event about one customer carries as that
// customer's id (intent.*, call.ended, customer.merged by the survivor,
// customer.erased). The only index on it covered pending rows alone, so
// finding delivered ones read every delivery of the account's endpoints of
// the last 30 days; this one reads only the customer's. Partial: credits.low
// and test events, which concern no customer, carry no key and no entry.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index event_deliveries_customer on event_deliveries (ordering_key) where ordering_key is not null
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index event_deliveries_customer`.execute(db);
}
