import { sql } from "kysely";
import type { DayCounts } from "../../domain/contact-figures.ts";
import type { Tenant } from "../../domain/tenant.ts";
import type { Db } from "../engine/database.ts";

// The contact figures' counts per account, mode, UTC day and intent ('' for every call).

export interface DayCountsKey {
  readonly accountId: string;
  readonly mode: string;
  readonly day: string;
  readonly intent: string;
}

/** Adds the changes to the kept counts, in one statement. */
export async function addDayCounts(
  db: Db,
  changes: readonly { readonly key: DayCountsKey; readonly counts: DayCounts }[],
): Promise<void> {
  if (changes.length === 0) return;
  const column = (pick: (counts: DayCounts) => number) => changes.map((c) => pick(c.counts));
  await sql`
    insert into contact_figures_days (account_id, mode, day, intent, calls, repeat_calls, followed_by_repeat,
      issues_opened, first_contact, issues_resolved, attempts_sum,
      attempts_1, attempts_2, attempts_3, attempts_4, attempts_5_or_more)
    select * from unnest(
      ${changes.map((c) => c.key.accountId)}::text[], ${changes.map((c) => c.key.mode)}::text[],
      ${changes.map((c) => c.key.day)}::date[], ${changes.map((c) => c.key.intent)}::text[],
      ${column((c) => c.calls)}::int[], ${column((c) => c.repeatCalls)}::int[],
      ${column((c) => c.followedByRepeat)}::int[], ${column((c) => c.issuesOpened)}::int[],
      ${column((c) => c.firstContact)}::int[], ${column((c) => c.issuesResolved)}::int[],
      ${column((c) => c.attemptsSum)}::int[], ${column((c) => c.attempts[0])}::int[],
      ${column((c) => c.attempts[1])}::int[], ${column((c) => c.attempts[2])}::int[],
      ${column((c) => c.attempts[3])}::int[], ${column((c) => c.attempts[4])}::int[])
    on conflict (account_id, mode, day, intent) do update set
      calls = contact_figures_days.calls + excluded.calls,
      repeat_calls = contact_figures_days.repeat_calls + excluded.repeat_calls,
      followed_by_repeat = contact_figures_days.followed_by_repeat + excluded.followed_by_repeat,
      issues_opened = contact_figures_days.issues_opened + excluded.issues_opened,
      first_contact = contact_figures_days.first_contact + excluded.first_contact,
      issues_resolved = contact_figures_days.issues_resolved + excluded.issues_resolved,
      attempts_sum = contact_figures_days.attempts_sum + excluded.attempts_sum,
      attempts_1 = contact_figures_days.attempts_1 + excluded.attempts_1,
      attempts_2 = contact_figures_days.attempts_2 + excluded.attempts_2,
      attempts_3 = contact_figures_days.attempts_3 + excluded.attempts_3,
      attempts_4 = contact_figures_days.attempts_4 + excluded.attempts_4,
      attempts_5_or_more = contact_figures_days.attempts_5_or_more + excluded.attempts_5_or_more
  `.execute(db);
}

export interface DayCountsRow {
  readonly day: string;
  readonly intent: string;
  readonly counts: DayCounts;
}

/** The tenant's counts of the UTC days `from` to `to` (inclusive), by their primary key. */
export async function readDayCounts(db: Db, tenant: Tenant, from: string, to: string): Promise<DayCountsRow[]> {
  const { rows } = await sql<Record<string, number> & { day: string; intent: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, intent, calls, repeat_calls, followed_by_repeat, issues_opened,
      first_contact, issues_resolved, attempts_sum, attempts_1, attempts_2, attempts_3, attempts_4, attempts_5_or_more
    from contact_figures_days
    where account_id = ${tenant.accountId} and mode = ${tenant.mode} and day between ${from}::date and ${to}::date
  `.execute(db);
  return rows.map((r) => ({
    day: r.day,
    intent: r.intent,
    counts: {
      calls: r.calls,
      repeatCalls: r.repeat_calls,
      followedByRepeat: r.followed_by_repeat,
      issuesOpened: r.issues_opened,
      firstContact: r.first_contact,
      issuesResolved: r.issues_resolved,
      attemptsSum: r.attempts_sum,
      attempts: [r.attempts_1, r.attempts_2, r.attempts_3, r.attempts_4, r.attempts_5_or_more],
    },
  }));
}

/** The tenant's open issues, by the age of the call that opened them: under 1, 1–7, 7–30, over 30 days. */
export async function openIssuesByAge(db: Db, tenant: Tenant, now: Date): Promise<[number, number, number, number]> {
  const day = 24 * 60 * 60 * 1000;
  const at = (days: number) => new Date(now.getTime() - days * day);
  const { rows } = await sql<{ a: number; b: number; c: number; d: number }>`
    select count(*) filter (where opened_at > ${at(1)})::int as a,
      count(*) filter (where opened_at <= ${at(1)} and opened_at > ${at(7)})::int as b,
      count(*) filter (where opened_at <= ${at(7)} and opened_at > ${at(30)})::int as c,
      count(*) filter (where opened_at <= ${at(30)})::int as d
    from contact_figures_issues
    where account_id = ${tenant.accountId} and mode = ${tenant.mode} and resolved_at is null
  `.execute(db);
  const row = rows[0];
  return [row?.a ?? 0, row?.b ?? 0, row?.c ?? 0, row?.d ?? 0];
}
