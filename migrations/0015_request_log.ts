import { type Kysely, sql } from "kysely";

// The dashboard's Requests page and its usage per key.
//
// request_log: one row per API request an account's key made (REST, Connect
// or gRPC): when, which key, which route or RPC, the status, the latency and
// the request id. Never a body, a header or a secret. Written in batches off
// the request's path and kept 7 days by the retention sweeper. Unlogged: it
// writes no WAL (it was 14 % of a call's WAL, bench:cost), at the price of
// being emptied after a crash of PostgreSQL and not reaching replicas, which a
// 7-day view of recent traffic can afford; nothing a client was answered lives
// there.
//
// key_usage_days: billed calls per key and UTC day, added to by the usage
// meter in the same batches as usage_days (calls do not carry their key).

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create unlogged table request_log (
      account_id text not null references accounts (id) on delete cascade,
      key_id text not null,
      at timestamptz not null,
      protocol text not null,
      route text not null,
      status integer not null,
      latency_ms real not null,
      request_id text not null
    )
  `.execute(db);
  // The page reads an account's newest rows; the sweeper deletes the oldest of all.
  await sql`create index request_log_account_at on request_log (account_id, at desc)`.execute(db);
  await sql`create index request_log_at on request_log using brin (at) with (pages_per_range = 16)`.execute(db);
  await sql`
    create table key_usage_days (
      key_id text not null references api_keys (id) on delete cascade,
      day date not null,
      billed integer not null default 0,
      primary key (key_id, day)
    )
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table key_usage_days, request_log`.execute(db);
}
