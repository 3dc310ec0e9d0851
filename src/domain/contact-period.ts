import { type FieldIssue, validationError } from "./domain-error.ts";
import { DAY_MS } from "./limits.ts";

// A period of the contact figures: whole UTC days, from..to inclusive, at most 366 of them, and the period of
// the same length just before it, which the figures are paired with.

export const MAX_PERIOD_DAYS = 366;

export interface ContactPeriod {
  readonly from: string;
  readonly to: string;
}

export interface PairedPeriods {
  readonly period: ContactPeriod;
  readonly previous: ContactPeriod;
  /** Every day of the period, in order. */
  readonly days: readonly string[];
}

const DAY_TEXT = /^\d{4}-\d{2}-\d{2}$/;

/** The day as milliseconds since the epoch, or NaN unless a real "YYYY-MM-DD" day. */
function dayMs(text: string): number {
  if (!DAY_TEXT.test(text)) return Number.NaN;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? Number.NaN : ms;
}

function dayText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The period and the one before it, or a 400 naming every field that is wrong. */
export function parseContactPeriod(from: string, to: string): PairedPeriods {
  const issues = contactPeriodIssues(from, to);
  if (issues.length > 0) throw validationError(issues);
  const start = dayMs(from);
  const end = dayMs(to);
  const length = (end - start) / DAY_MS + 1;
  const days = Array.from({ length }, (_, n) => dayText(start + n * DAY_MS));
  return {
    period: { from, to },
    previous: { from: dayText(start - length * DAY_MS), to: dayText(start - DAY_MS) },
    days,
  };
}

/** What is wrong with a period, field by field, for a caller that names it with the request's other issues. */
export function contactPeriodIssues(from: string, to: string): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const start = dayMs(from);
  const end = dayMs(to);
  if (from === "") issues.push({ path: ["from"], message: "Required" });
  else if (Number.isNaN(start)) issues.push({ path: ["from"], message: "Must be a UTC day, YYYY-MM-DD" });
  if (to === "") issues.push({ path: ["to"], message: "Required" });
  else if (Number.isNaN(end)) issues.push({ path: ["to"], message: "Must be a UTC day, YYYY-MM-DD" });
  if (issues.length === 0) {
    if (end < start) issues.push({ path: ["to"], message: "Must not be before from" });
    else if ((end - start) / DAY_MS + 1 > MAX_PERIOD_DAYS) {
      issues.push({ path: ["to"], message: `A period is at most ${MAX_PERIOD_DAYS} days` });
    }
  }
  return issues;
}
