import { type Kysely, sql } from "kysely";

// A call finds its customer by id about nine times: the start's lookup and its update of last_call_at, the end's
// lock, and the foreign-key check of customers for each row a call or the contact figures' job inserts. Through
// customers_pkey each is a descent of a b-tree one level deeper at 100,000 customers than at 1,000; through a
// hash index, one bucket page at any size (the index's metapage stays cached on the connection). PostgreSQL
// chooses it for equality on id whatever the statistics say, the primary key still keeps ids unique, and
// last_call_at's update stays HOT, since neither index holds it (docs/architecture.md, "Customers found by
// hash"). Building it locks the table's writes while it reads every customer once.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index customers_id_hash on customers using hash (id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index customers_id_hash`.execute(db);
}
