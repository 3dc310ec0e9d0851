import { type Kysely, sql } from "kysely";

// Accounts and keys, then the caller context: customers with their
// identifiers, calls, intents and variables, and the idempotency record of
// ends. Every query of the hot path is an index lookup on one of these keys.

// One statement per entry: the embedded database runs one statement per query.
const statements = [
  sql`
    create table accounts (
      id text primary key,
      name text not null,
      billing_account_id text not null unique,
      tier text not null check (tier in ('free', 'starter', 'growth', 'scale')),
      quota_remaining integer not null check (quota_remaining >= 0),
      quota_period text not null,
      created_at timestamptz not null
    )
  `,
  sql`
    create table api_keys (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      kind text not null check (kind in ('test', 'prod')),
      secret_hash text not null unique,
      prefix text not null,
      created_at timestamptz not null,
      revoked_at timestamptz
    )
  `,
  sql`
    create index api_keys_account_id on api_keys (account_id)
  `,
  sql`
    create table settings (
      name text primary key,
      value text not null
    )
  `,
  sql`
    create table customers (
      id uuid primary key,
      account_id text not null references accounts (id) on delete cascade,
      mode text not null check (mode in ('test', 'prod')),
      created_at timestamptz not null,
      last_call_at timestamptz not null
    )
  `,
  sql`
    create index customers_last_call_at on customers (last_call_at)
  `,
  sql`
    create table customer_identifiers (
      account_id text not null,
      mode text not null,
      kind text not null check (kind in ('ani', 'external_id')),
      namespace text not null,
      value text not null,
      customer_id uuid not null references customers (id) on delete cascade,
      last_seen_at timestamptz not null,
      primary key (account_id, mode, kind, namespace, value)
    )
  `,
  sql`
    create index customer_identifiers_customer_id on customer_identifiers (customer_id)
  `,
  sql`
    create table customer_dnis (
      customer_id uuid not null references customers (id) on delete cascade,
      dnis text not null,
      last_seen_at timestamptz not null,
      primary key (customer_id, dnis)
    )
  `,
  sql`
    create table calls (
      account_id text not null,
      mode text not null,
      call_id text not null,
      customer_id uuid not null references customers (id) on delete cascade,
      call_start timestamptz not null,
      call_end timestamptz,
      primary key (account_id, mode, call_id)
    )
  `,
  sql`
    create index calls_call_start on calls (call_start)
  `,
  sql`
    create index calls_customer_id on calls (customer_id)
  `,
  sql`
    create table intents (
      customer_id uuid not null references customers (id) on delete cascade,
      name text not null,
      status text not null check (status in ('open', 'resolved')),
      attempt_count integer not null,
      resolution_type text,
      resolution_external_reference text,
      updated_at timestamptz not null,
      primary key (customer_id, name)
    )
  `,
  sql`
    create table variables (
      customer_id uuid not null references customers (id) on delete cascade,
      name text not null,
      value text not null,
      source text,
      ttl_seconds integer not null,
      updated_at timestamptz not null,
      expires_at timestamptz not null,
      primary key (customer_id, name)
    )
  `,
  sql`
    create index variables_expires_at on variables (expires_at)
  `,
  sql`
    create table idempotency_keys (
      account_id text not null,
      mode text not null,
      key text not null,
      request_hash text not null,
      response text,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      primary key (account_id, mode, key)
    )
  `,
  sql`
    create index idempotency_keys_expires_at on idempotency_keys (expires_at)
  `,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table idempotency_keys, variables, intents, calls, customer_dnis,
      customer_identifiers, customers, settings, api_keys, accounts
  `.execute(db);
}
