import { type Kysely, sql } from "kysely";

// An account's voice-platform integrations. Each has its own webhook id (the
// unguessable part of its URL), the hash of the secret the platform sends as
// a header, and where the platform signs (Retell, ElevenLabs) the signing
// secret itself: an HMAC cannot be checked against a hash.

const statements = [
  sql`
    create table integrations (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      webhook_id text not null unique,
      platform text not null check (platform in ('vapi', 'retell', 'elevenlabs', 'twilio_studio')),
      name text not null,
      kind text not null check (kind in ('test', 'prod')),
      token_hash text not null,
      signing_secret text,
      assistant_id text,
      intent_field text not null,
      status_field text not null,
      variable_fields text not null,
      store_summary boolean not null,
      created_at timestamptz not null
    )
  `,
  sql`
    create index integrations_account_id on integrations (account_id)
  `,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table integrations`.execute(db);
}
