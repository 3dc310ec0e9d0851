import { type Kysely, sql } from "kysely";

// Outbound events (docs/events.md). An account's endpoints, each for one data
// kind, and the outbox: one row per event per endpoint, written by the same
// statement or transaction as the change it reports. A row is pending until
// delivered or given up; the worker claims pending rows with FOR UPDATE SKIP
// LOCKED. The signing secret is stored as is: a signature needs it.

const statements = [
  sql`
    create table event_endpoints (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      kind text not null check (kind in ('test', 'prod')),
      url text not null,
      event_types text[] not null,
      include_variable_values boolean not null,
      enabled boolean not null,
      disabled_reason text,
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      consecutive_failures integer not null default 0,
      failing_since timestamptz,
      created_at timestamptz not null
    )
  `,
  sql`create index event_endpoints_tenant on event_endpoints (account_id, kind) where enabled`,
  sql`
    create table event_deliveries (
      id bigserial primary key,
      event_id text not null,
      endpoint_id text not null references event_endpoints (id) on delete cascade,
      event_type text not null,
      payload text not null,
      ordering_key text,
      state text not null check (state in ('pending', 'delivered', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      created_at timestamptz not null,
      last_attempt_at timestamptz,
      response_code integer,
      latency_ms integer,
      last_error text
    )
  `,
  sql`create index event_deliveries_due on event_deliveries (next_attempt_at) where state = 'pending'`,
  sql`
    create index event_deliveries_line on event_deliveries (endpoint_id, ordering_key, id) where state = 'pending'
  `,
  sql`create index event_deliveries_recent on event_deliveries (endpoint_id, id desc)`,
  sql`create index event_deliveries_finished on event_deliveries (created_at) where state <> 'pending'`,
  // One credits.low per account, month and threshold, whichever statement notices it first.
  sql`
    create table credits_low_notices (
      account_id text not null references accounts (id) on delete cascade,
      period text not null,
      threshold integer not null,
      primary key (account_id, period, threshold)
    )
  `,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table credits_low_notices`.execute(db);
  await sql`drop table event_deliveries`.execute(db);
  await sql`drop table event_endpoints`.execute(db);
}
