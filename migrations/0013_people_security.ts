import { type Kysely, sql } from "kysely";

// People and sessions, secured: an email is verified before its person may
// use production keys; a session has an idle deadline besides its absolute one
// and carries the hash of its CSRF secret; one-time tokens (email
// verification, password reset) are stored as hashes and spent by one UPDATE.

const statements = [
  // People who signed up before verification existed keep working: their address was never questioned.
  sql`alter table users add column email_verified_at timestamptz`,
  sql`update users set email_verified_at = created_at`,
  // Sessions of the old shape had no CSRF binding nor idle deadline: they end.
  sql`delete from sessions`,
  sql`
    alter table sessions
      add column last_seen_at timestamptz not null,
      add column csrf_hash text not null
  `,
  sql`
    create table user_tokens (
      token_hash text primary key,
      user_id text not null references users (id) on delete cascade,
      purpose text not null check (purpose in ('verify_email', 'reset_password')),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )
  `,
  sql`create index user_tokens_user_id on user_tokens (user_id)`,
  sql`create index invites_account_id on invites (account_id) where used_at is null`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index invites_account_id`.execute(db);
  await sql`drop table user_tokens`.execute(db);
  await sql`alter table sessions drop column last_seen_at, drop column csrf_hash`.execute(db);
  await sql`alter table users drop column email_verified_at`.execute(db);
}
