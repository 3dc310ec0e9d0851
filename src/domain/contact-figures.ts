import { DAY_MS } from "./limits.ts";

// How one ended call changes an account's contact-centre figures (docs/analytics.md): the counts it adds to (or
// takes from) per UTC day and intent, and what is kept of its customer for the next call. Pure: the job that
// reads the calls and writes the counts is src/jobs/contact-figures-job.ts.

/** The counters of one day and intent (`""`: every call). */
export interface DayCounts {
  calls: number;
  repeatCalls: number;
  followedByRepeat: number;
  issuesOpened: number;
  firstContact: number;
  issuesResolved: number;
  attemptsSum: number;
  /** Issues resolved after 1, 2, 3, 4, 5 or more attempts. */
  attempts: [number, number, number, number, number];
}

/** The intent key of the counts of every call. */
export const EVERY_CALL = "";

export interface CallerState {
  readonly lastCallAt: Date;
  readonly lastCallIntents: readonly string[];
}

export interface IssueState {
  readonly openedAt: Date;
  readonly attempts: number;
  /** Undefined while open. */
  readonly resolvedAt: Date | undefined;
  readonly firstContact: boolean;
}

export interface EndedCall {
  readonly start: Date;
  /** The intents the end saved, each once. */
  readonly intents: readonly { readonly intent: string; readonly status: "open" | "resolved" }[];
  readonly windowDays: number;
}

export interface CustomerFigures {
  caller: CallerState | undefined;
  readonly issues: Map<string, IssueState>;
}

/**
 * A change of the counts of one day and intent. `resolvedAfter`: the attempts of the issue whose resolution
 * `issuesResolved` counts (or takes back), for the distribution.
 */
export type CountChange = Partial<Omit<DayCounts, "attempts">> & { readonly resolvedAfter?: number };

export type CountSink = (day: string, intent: string, change: CountChange) => void;

/** Applies a change to counts. */
export function applyChange(counts: DayCounts, change: CountChange): void {
  counts.calls += change.calls ?? 0;
  counts.repeatCalls += change.repeatCalls ?? 0;
  counts.followedByRepeat += change.followedByRepeat ?? 0;
  counts.issuesOpened += change.issuesOpened ?? 0;
  counts.firstContact += change.firstContact ?? 0;
  counts.issuesResolved += change.issuesResolved ?? 0;
  counts.attemptsSum += change.attemptsSum ?? 0;
  if (change.resolvedAfter !== undefined)
    counts.attempts[attemptsBucket(change.resolvedAfter)] += change.issuesResolved ?? 0;
}

export function emptyCounts(): DayCounts {
  return {
    calls: 0,
    repeatCalls: 0,
    followedByRepeat: 0,
    issuesOpened: 0,
    firstContact: 0,
    issuesResolved: 0,
    attemptsSum: 0,
    attempts: [0, 0, 0, 0, 0],
  };
}

/** The UTC day of a moment, "2026-11-01". */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The attempts bucket of an issue resolved after `attempts` calls: 0 for 1 … 4 for 5 or more. */
export function attemptsBucket(attempts: number): number {
  return Math.min(Math.max(attempts, 1), 5) - 1;
}

/**
 * Counts one call of a customer, in the order calls ended: `figures` is what was kept of the customer before
 * it and is changed in place; `add` receives every change of a count.
 */
export function countCall(figures: CustomerFigures, call: EndedCall, add: CountSink): void {
  const windowMs = call.windowDays * DAY_MS;
  const t = call.start.getTime();
  const day = utcDay(call.start);

  add(day, EVERY_CALL, { calls: 1 });
  for (const { intent } of call.intents) add(day, intent, { calls: 1 });
  const previous = figures.caller;
  if (previous !== undefined) {
    const gap = t - previous.lastCallAt.getTime();
    if (gap >= 0 && gap < windowMs) {
      add(day, EVERY_CALL, { repeatCalls: 1 });
      const earlierDay = utcDay(previous.lastCallAt);
      add(earlierDay, EVERY_CALL, { followedByRepeat: 1 });
      for (const intent of previous.lastCallIntents) add(earlierDay, intent, { followedByRepeat: 1 });
    }
  }
  // Calls of one customer overlapping: the one that started later stays the last call.
  if (previous === undefined || t >= previous.lastCallAt.getTime()) {
    figures.caller = { lastCallAt: call.start, lastCallIntents: call.intents.map((i) => i.intent) };
  }

  for (const { intent, status } of call.intents) {
    figures.issues.set(intent, nextIssue(figures.issues.get(intent), call.start, status, windowMs, intent, add));
  }
}

function nextIssue(
  issue: IssueState | undefined,
  at: Date,
  status: "open" | "resolved",
  windowMs: number,
  intent: string,
  add: CountSink,
): IssueState {
  const resolvedAt = issue?.resolvedAt;
  const afterWindow = resolvedAt !== undefined && at.getTime() - resolvedAt.getTime() >= windowMs;
  if (issue === undefined || afterWindow) {
    // A new issue.
    const day = utcDay(at);
    add(day, intent, { issuesOpened: 1 });
    if (status === "open") return { openedAt: at, attempts: 1, resolvedAt: undefined, firstContact: false };
    add(day, intent, { firstContact: 1 });
    resolve(day, intent, 1, 1, add);
    return { openedAt: at, attempts: 1, resolvedAt: at, firstContact: true };
  }
  if (resolvedAt === undefined) {
    // Open: one more attempt, perhaps the last.
    const attempts = issue.attempts + 1;
    if (status === "open") return { ...issue, attempts };
    resolve(utcDay(at), intent, attempts, 1, add);
    return { ...issue, attempts, resolvedAt: at };
  }
  // Resolved, and within the window: saved resolved again changes nothing; saved open reopens it.
  if (status === "resolved") return issue;
  resolve(utcDay(resolvedAt), intent, issue.attempts, -1, add);
  if (issue.firstContact) add(utcDay(issue.openedAt), intent, { firstContact: -1 });
  return { ...issue, attempts: issue.attempts + 1, resolvedAt: undefined, firstContact: false };
}

function resolve(day: string, intent: string, attempts: number, by: 1 | -1, add: CountSink): void {
  add(day, intent, { issuesResolved: by, attemptsSum: by * attempts, resolvedAfter: attempts });
}
