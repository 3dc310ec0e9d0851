import { sql } from "kysely";
import { MODES } from "../../domain/tenant.ts";
import type { Db } from "../engine/database.ts";
import { outboxInsert } from "../event-outbox.ts";

/**
 * Records that the account has used `threshold` % of this period's quota and
 * writes credits.low for its endpoints of both data kinds (the quota is the
 * account's, shared by test and production keys), in one statement: the
 * first statement to notice a threshold in a period writes the event, every
 * later one finds the notice and writes nothing. True when this one wrote it.
 */
export async function noticeCreditsLow(
  db: Db,
  accountId: string,
  period: string,
  threshold: number,
  data: Record<string, unknown>,
  now: Date,
): Promise<boolean> {
  const event = sql`select 0 as seq, 'credits.low'::text as type, ${JSON.stringify(data)}::jsonb as data,
    null::jsonb as data_with_values, null::text as ordering_key from notice`;
  const outboxes = MODES.map(
    (mode) => sql`${sql.raw(`outbox_${mode}`)} as (${outboxInsert({ accountId, mode }, now, event)})`,
  );
  const { rows } = await sql<{ threshold: number }>`
    with notice as (
      insert into credits_low_notices (account_id, period, threshold) values (${accountId}, ${period}, ${threshold})
      on conflict do nothing
      returning threshold
    ),
    ${sql.join(outboxes, sql`, `)}
    select threshold from notice
  `.execute(db);
  return rows.length > 0;
}
