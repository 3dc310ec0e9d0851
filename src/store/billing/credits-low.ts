import { sql } from "kysely";
import { type CreditsLowData, creditsLow } from "../../domain/event-types/credits-low.ts";
import { MODES } from "../../domain/tenant.ts";
import type { MonthlyAllowance, Tier } from "../../domain/tiers.ts";
import type { Db } from "../database.ts";
import { outboxInsert } from "../event-outbox.ts";
import { slotCredits, tierAllowance } from "./charge.ts";

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
  data: CreditsLowData,
  now: Date,
): Promise<boolean> {
  const event = sql`select 0 as seq, ${sql.lit(creditsLow.type)}::text as type, ${JSON.stringify(data)}::jsonb as data,
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

/** An account past a threshold this period with no notice of it yet. */
export interface UnnoticedCreditsLow {
  readonly accountId: string;
  readonly threshold: number;
  readonly creditsLeft: number;
  readonly allowance: number;
}

/**
 * Up to `limit` thresholds crossed in `period` that no statement has recorded
 * (lowest first per account), in one query. `creditsLeftAt` holds, per tier
 * and threshold, the most credits left at which the threshold is crossed.
 * Only accounts with a slot of this period are read: a charge moves its slot
 * to the period, and an account whose slots are all older still has its whole
 * allowance. The slots' period has no index (a charge's update of its slot
 * stays HOT), so finding those accounts reads the table: 16 small rows an account.
 */
export async function findUnnoticedCreditsLow(
  db: Db,
  period: string,
  allowance: MonthlyAllowance,
  creditsLeftAt: readonly { tier: Tier; threshold: number; creditsLeft: number }[],
  limit: number,
): Promise<UnnoticedCreditsLow[]> {
  if (creditsLeftAt.length === 0) return [];
  const { rows } = await sql<UnnoticedCreditsLow>`
    with used as (
      select s.account_id, a.tier, t.allowance, sum(${slotCredits("s", period, sql`t.allowance`)})::int as credits_left
      from quota_slots s
      join accounts a on a.id = s.account_id
      cross join lateral (select ${tierAllowance(sql`a.tier`, allowance)} as allowance) t
      where s.account_id in (select account_id from quota_slots where period >= ${period})
      group by s.account_id, a.tier, t.allowance
    ),
    crossing as (
      select * from unnest(
        ${creditsLeftAt.map((c) => c.tier)}::text[],
        ${creditsLeftAt.map((c) => c.threshold)}::int[],
        ${creditsLeftAt.map((c) => c.creditsLeft)}::int[]
      ) as c (tier, threshold, credits_left)
    )
    select u.account_id as "accountId", c.threshold, u.credits_left as "creditsLeft", u.allowance
    from used u join crossing c on c.tier = u.tier and u.credits_left <= c.credits_left
    where not exists (
      select 1 from credits_low_notices n
      where n.account_id = u.account_id and n.period = ${period} and n.threshold = c.threshold
    )
    order by u.account_id, c.threshold
    limit ${limit}
  `.execute(db);
  return rows;
}
