import { applyChange, type DayCounts, emptyCounts, utcDay } from "../domain/contact-figures.ts";
import { type ContactPeriod, contactPeriodIssues, parseContactPeriod } from "../domain/contact-period.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import type { Tenant } from "../domain/tenant.ts";
import { repeatWindowOf } from "../store/account-repository.ts";
import { openIssuesByAge, type SummedCounts, sumsByDay, sumsByIntent } from "../store/contact-figures/day-counts.ts";
import { readProgress } from "../store/contact-figures/ended-calls.ts";
import type { Db } from "../store/database.ts";

// The contact figures of a tenant for a period, paired with the period before (docs/analytics.md). Read from
// the per-day counts the job keeps: a few hundred rows by their key, whatever the number of calls.

export interface ContactFigures {
  readonly calls: number;
  readonly repeatCalls: number;
  readonly repeatRate: number | undefined;
  readonly issuesOpened: number;
  readonly resolvedFirstContact: number;
  readonly firstContactResolution: number | undefined;
  readonly issuesResolved: number;
  readonly meanAttempts: number | undefined;
  readonly attemptsDistribution: readonly number[];
}

export interface ContactFiguresReport {
  readonly period: ContactPeriod;
  readonly previousPeriod: ContactPeriod;
  readonly overall: ContactFigures;
  readonly previousOverall: ContactFigures;
  readonly byIntent: readonly { intent: string; figures: ContactFigures; previous: ContactFigures }[];
  readonly byDay: readonly { day: string; figures: ContactFigures }[];
  readonly openIssues: readonly [number, number, number, number];
  readonly repeatWindowDays: number;
  /** Calls ended before it are counted; undefined before the job's first run. */
  readonly countedThrough: Date | undefined;
}

export async function getContactFigures(
  deps: { readonly db: Db },
  tenant: Tenant,
  input: {
    readonly from: string;
    readonly to: string;
    /** What the host could not decode of the request: refused with the period's issues, in one answer. */
    readonly decodeIssues?: readonly FieldIssue[];
  },
  now: Date,
): Promise<ContactFiguresReport> {
  refuseOffendingFields(contactPeriodIssues(input.from, input.to), input.decodeIssues);
  const { period, previous, days } = parseContactPeriod(input.from, input.to);
  // Summed by the database: a few hundred rows come back, whatever the range's calls.
  const [byDay, current, before, openIssues, windowDays, progress] = await Promise.all([
    sumsByDay(deps.db, tenant, period.from, period.to),
    sumsByIntent(deps.db, tenant, period.from, period.to),
    sumsByIntent(deps.db, tenant, previous.from, previous.to),
    openIssuesByAge(deps.db, tenant, utcDay(now)),
    repeatWindowOf(deps.db, tenant.accountId),
    readProgress(deps.db),
  ]);
  const intents = [...new Set([...current, ...before].filter((r) => !r.everyCall).map((r) => r.key))].sort();
  const forIntent = (rows: readonly SummedCounts[], intent: string) => {
    const counts = rows.find((r) => !r.everyCall && r.key === intent)?.counts ?? emptyCounts();
    return figuresOf(counts.calls, counts.followedByRepeat, counts);
  };
  return {
    period,
    previousPeriod: previous,
    overall: overallOf(current),
    previousOverall: overallOf(before),
    byIntent: intents.map((intent) => ({
      intent,
      figures: forIntent(current, intent),
      previous: forIntent(before, intent),
    })),
    byDay: days.map((day) => ({ day, figures: overallOf(byDay.filter((r) => r.key === day)) })),
    openIssues,
    repeatWindowDays: windowDays ?? 0,
    countedThrough: progress?.countedThrough,
  };
}

function sum(rows: readonly SummedCounts[]): DayCounts {
  const total = emptyCounts();
  for (const { counts } of rows) {
    applyChange(total, counts);
    counts.attempts.forEach((n, i) => {
      total.attempts[i] = (total.attempts[i] ?? 0) + n;
    });
  }
  return total;
}

/** Calls and repeats from the every-call rows; issues summed over the intents. */
function overallOf(rows: readonly SummedCounts[]): ContactFigures {
  const calls = sum(rows.filter((r) => r.everyCall));
  const issues = sum(rows.filter((r) => !r.everyCall));
  return figuresOf(calls.calls, calls.repeatCalls, issues);
}

function figuresOf(calls: number, repeatCalls: number, issues: DayCounts): ContactFigures {
  return {
    calls,
    repeatCalls,
    repeatRate: ratio(repeatCalls, calls),
    issuesOpened: issues.issuesOpened,
    resolvedFirstContact: issues.firstContact,
    firstContactResolution: ratio(issues.firstContact, issues.issuesOpened),
    issuesResolved: issues.issuesResolved,
    meanAttempts: ratio(issues.attemptsSum, issues.issuesResolved),
    attemptsDistribution: issues.attempts,
  };
}

function ratio(part: number, whole: number): number | undefined {
  return whole === 0 ? undefined : part / whole;
}
