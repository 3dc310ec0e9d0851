import { type Kysely, sql } from "kysely";

// The self-service dashboard: people (users) who belong to an account, their
// server-side sessions, one-time invitations, the account's audit log and the
// billed and refused calls counted per day. Keys gain a name, an expiry (the
// old secret of a rolled key) and when they were last used.

const statements = [
  sql`
    alter table api_keys
      add column name text not null default '',
      add column expires_at timestamptz,
      add column last_used_at timestamptz
  `,
  sql`
    create table users (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      email text not null unique,
      password_hash text not null,
      role text not null check (role in ('owner', 'member')),
      created_at timestamptz not null
    )
  `,
  sql`create index users_account_id on users (account_id)`,
  sql`
    create table sessions (
      token_hash text primary key,
      user_id text not null references users (id) on delete cascade,
      created_at timestamptz not null,
      expires_at timestamptz not null
    )
  `,
  sql`create index sessions_user_id on sessions (user_id)`,
  sql`
    create table invites (
      token_hash text primary key,
      account_id text references accounts (id) on delete cascade,
      created_by text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )
  `,
  sql`
    create table audit_events (
      id bigint generated always as identity primary key,
      account_id text not null references accounts (id) on delete cascade,
      at timestamptz not null,
      actor text not null,
      event text not null,
      detail text not null default '',
      client_address text not null default ''
    )
  `,
  sql`create index audit_events_account_at on audit_events (account_id, at desc)`,
  sql`
    create table usage_days (
      account_id text not null references accounts (id) on delete cascade,
      mode text not null check (mode in ('test', 'prod')),
      day date not null,
      billed integer not null default 0,
      refused_quota integer not null default 0,
      refused_rate integer not null default 0,
      primary key (account_id, mode, day)
    )
  `,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table usage_days, audit_events, invites, sessions, users`.execute(db);
  await sql`alter table api_keys drop column name, drop column expires_at, drop column last_used_at`.execute(db);
}
