import { type Kysely, sql } from "kysely";

// Start-up asks the database what a statement of the service's is planned
// with, the way a call's statements are sent (with a parameter, so behind a
// transaction-mode pooler it carries the settings as they do). A pooler that
// drops startup parameters (PgBouncer's ignore_startup_parameters) or a
// DATABASE_URL whose `options` replace ours would otherwise leave the plans
// free to degrade without a word (docs/architecture.md, "Plans that cannot degrade").

export class PlanSettingsError extends Error {
  constructor(found: string) {
    super(
      `the database does not plan the service's statements with enable_seqscan = off and plan_cache_mode = ` +
        `force_generic_plan (found ${found}); behind a pooler that drops startup parameters set ` +
        `DATABASE_POOLER=session or DATABASE_POOLER=transaction, or remove the \`options\` of DATABASE_URL`,
    );
    this.name = "PlanSettingsError";
  }
}

export async function checkPlanSettings<S>(db: Kysely<S>): Promise<void> {
  const { rows } = await sql<{ seqscan: string; mode: string }>`
    select current_setting(${"enable_seqscan"}) as seqscan, current_setting(${"plan_cache_mode"}) as mode`.execute(db);
  const { seqscan, mode } = rows[0] ?? { seqscan: "unknown", mode: "unknown" };
  if (seqscan !== "off" || mode !== "force_generic_plan") {
    throw new PlanSettingsError(`enable_seqscan = ${seqscan}, plan_cache_mode = ${mode}`);
  }
}
