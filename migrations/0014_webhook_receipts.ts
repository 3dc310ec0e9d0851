import { type Kysely, sql } from "kysely";

// A platform webhook answered once: a replay of the same signed message (the
// same body under the same signature) gets the first answer and is not billed
// again. Kept for an hour, longer than any platform's signature window.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_receipts (
      integration_id text not null references integrations (id) on delete cascade,
      digest text not null,
      received_at timestamptz not null,
      reply_json text,
      primary key (integration_id, digest)
    )
  `.execute(db);
  await sql`create index webhook_receipts_received_at on webhook_receipts (received_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table webhook_receipts`.execute(db);
}
