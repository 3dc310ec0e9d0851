import { type Kysely, sql } from "kysely";

// The platforms' names are the adapters' (src/integrations/platforms/platform-adapters.ts), and the one statement
// that writes an integration's platform runs after createIntegration has refused any name that has no adapter; no
// statement changes it afterwards. The check constraint repeated that list in the schema, so each new platform
// needed a migration of its own (0010 for Telnyx); without it, a platform is its adapter and one line. A row whose
// name lost its adapter is read as the fallback integration-rows.ts names.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table integrations drop constraint integrations_platform_check`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    delete from integrations where platform not in ('vapi', 'retell', 'elevenlabs', 'twilio_studio', 'telnyx')
  `.execute(db);
  await sql`
    alter table integrations add constraint integrations_platform_check
      check (platform in ('vapi', 'retell', 'elevenlabs', 'twilio_studio', 'telnyx'))
  `.execute(db);
}
