import type { FieldIssue } from "./domain-error.ts";
import { DAY_MS } from "./limits.ts";
import { refuseOffendingFields } from "./offending-fields.ts";

// How long an account's callers are remembered: a customer is matched, and kept, for this many days after
// their last call; then the sweep deletes them with everything they hold (identifiers, intents, variables and
// whatever else a call saved for them). The account's owner sets it; the spec's 90 days is the default.

export const MIN_RETENTION_DAYS = 7;
export const MAX_RETENTION_DAYS = 365;
export const DEFAULT_RETENTION_DAYS = 90;

/** Whether `days` is a retention an account may have: an integer from 7 to 365. */
export function isRetentionDays(days: number): boolean {
  return Number.isInteger(days) && days >= MIN_RETENTION_DAYS && days <= MAX_RETENTION_DAYS;
}

/** Typed days (a form field, a command-line argument) as a number: NaN unless whole digits, which no check accepts. */
export function retentionDaysFromText(text: string): number {
  return /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * The days, or a 400 naming `path` when absent, not an integer, or outside 7..365, together with what the host
 * could not decode of the request.
 */
export function parseRetentionDays(
  value: number | undefined,
  path = "context_retention_days",
  decodeIssues: readonly FieldIssue[] = [],
): number {
  const issues: FieldIssue[] = [];
  if (value === undefined) issues.push({ path: [path], message: "Required" });
  else if (!isRetentionDays(value)) {
    issues.push({ path: [path], message: `Must be an integer from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}` });
  }
  refuseOffendingFields(issues, decodeIssues);
  // Absent was refused just above.
  return value as number;
}

/** The earliest last call a customer may have to be matched at `now`. */
export function matchableSince(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}
