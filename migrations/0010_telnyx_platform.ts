import { type Kysely, sql } from "kysely";

// Telnyx joins the platforms an integration can be. Its signing secret is the
// account's Ed25519 public key (base64), kept as the other platforms' secrets are.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table integrations drop constraint integrations_platform_check`.execute(db);
  await sql`
    alter table integrations add constraint integrations_platform_check
      check (platform in ('vapi', 'retell', 'elevenlabs', 'twilio_studio', 'telnyx'))
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from integrations where platform = 'telnyx'`.execute(db);
  await sql`alter table integrations drop constraint integrations_platform_check`.execute(db);
  await sql`
    alter table integrations add constraint integrations_platform_check
      check (platform in ('vapi', 'retell', 'elevenlabs', 'twilio_studio'))
  `.execute(db);
}
