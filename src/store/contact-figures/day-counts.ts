import { sql } from "kysely";
import type { DayCounts } from "../../domain/contact-figures.ts";
import type { Tenant } from "../../domain/tenant.ts";
import type { Db } from "../database.ts";

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

/** Counts summed over a group of day rows: a day (`key` the day) or an intent (`key` the intent). */
export interface SummedCounts {
  readonly key: string;
  /** The every-call row's group, or the intents' (each intent's alone when grouped by intent). */
  readonly everyCall: boolean;
  readonly counts: DayCounts;
}

const SUMS = sql`sum(calls)::int as calls, sum(repeat_calls)::int as repeat_calls,
  sum(followed_by_repeat)::int as followed_by_repeat, sum(issues_opened)::int as issues_opened,
  sum(first_contact)::int as first_contact, sum(issues_resolved)::int as issues_resolved,
  sum(attempts_sum)::int as attempts_sum, sum(attempts_1)::int as attempts_1, sum(attempts_2)::int as attempts_2,
  sum(attempts_3)::int as attempts_3, sum(attempts_4)::int as attempts_4,
  sum(attempts_5_or_more)::int as attempts_5_or_more`;

type SumRow = Record<string, number> & { key: string; every_call: boolean };

function toSummed(r: SumRow): SummedCounts {
  return {
    key: r.key,
    everyCall: r.every_call,
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
  };
}

/** The tenant's counts of the UTC days `from` to `to` (inclusive) per day: the every-call row, and the intents' sum. */
export async function sumsByDay(db: Db, tenant: Tenant, from: string, to: string): Promise<SummedCounts[]> {
  const { rows } = await sql<SumRow>`
    select to_char(day, 'YYYY-MM-DD') as key, intent = '' as every_call, ${SUMS}
    from contact_figures_days
    where account_id = ${tenant.accountId} and mode = ${tenant.mode} and day between ${from}::date and ${to}::date
    group by day, intent = ''
  `.execute(db);
  return rows.map(toSummed);
}

/** The tenant's counts of the UTC days `from` to `to` (inclusive) per intent ('' for the every-call rows). */
export async function sumsByIntent(db: Db, tenant: Tenant, from: string, to: string): Promise<SummedCounts[]> {
  const { rows } = await sql<SumRow>`
    select intent as key, intent = '' as every_call, ${SUMS}
    from contact_figures_days
    where account_id = ${tenant.accountId} and mode = ${tenant.mode} and day between ${from}::date and ${to}::date
    group by intent
  `.execute(db);
  return rows.map(toSummed);
}

/**
 * The tenant's open issues by the UTC day they opened, counted back from `today`: opened today, 1 to 7 days
 * before, 7 to 30, more than 30.
 */
export async function openIssuesByAge(
  db: Db,
  tenant: Tenant,
  today: string,
): Promise<[number, number, number, number]> {
  const { rows } = await sql<{ a: number; b: number; c: number; d: number }>`
    select coalesce(sum(open) filter (where day >= ${today}::date), 0)::int as a,
      coalesce(sum(open) filter (where day < ${today}::date and day >= ${today}::date - 7), 0)::int as b,
      coalesce(sum(open) filter (where day < ${today}::date - 7 and day >= ${today}::date - 30), 0)::int as c,
      coalesce(sum(open) filter (where day < ${today}::date - 30), 0)::int as d
    from contact_figures_open
    where account_id = ${tenant.accountId} and mode = ${tenant.mode}
  `.execute(db);
  const row = rows[0];
  return [row?.a ?? 0, row?.b ?? 0, row?.c ?? 0, row?.d ?? 0];
}
