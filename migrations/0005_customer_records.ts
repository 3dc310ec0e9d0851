import { type Kysely, sql } from "kysely";

// Customer records: a customer merged into another leaves its ref behind as
// an alias of the survivor (erased with it), and a call keeps the number it
// came from, so a caller verified during the call can be linked to it.

const statements = [
  sql`
    create table customer_aliases (
      alias_id uuid primary key,
      account_id text not null,
      mode text not null,
      customer_id uuid not null references customers (id) on delete cascade,
      merged_at timestamptz not null
    )
  `,
  sql`
    create index customer_aliases_customer_id on customer_aliases (customer_id)
  `,
  sql`
    alter table calls add column ani text
  `,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table calls drop column ani`.execute(db);
  await sql`drop table customer_aliases`.execute(db);
}
