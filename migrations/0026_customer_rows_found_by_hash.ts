import { type Kysely, sql } from "kysely";

// What a start reads of one customer's rows by customer_id alone: its open intents (for the candidates' score and
// the context) and its live variables. Through the primary keys on (customer_id, name) each read descends a
// b-tree one level deeper at 100,000 customers than at 1,000; through a hash index on customer_id, one bucket
// page at any size (docs/architecture.md, "Customers found by hash"). The primary keys still keep the rows unique
// and serve the end's upserts.

const INDEXES = [
  ["intents_customer_id_hash", "intents"],
  ["variables_customer_id_hash", "variables"],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table] of INDEXES) {
    await sql`create index ${sql.id(name)} on ${sql.id(table)} using hash (customer_id)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name] of INDEXES) await sql`drop index ${sql.id(name)}`.execute(db);
}
