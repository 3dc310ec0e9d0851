import { type FieldIssue, validationError } from "./domain-error.ts";
import { DAY_MS } from "./limits.ts";

// How long an account's callers are remembered: a customer is matched, and kept, for this many days after
// their last call; then the sweep deletes them with everything they hold (identifiers, intents, variables and
// whatever else a call saved for them). The account's owner sets it; the spec's 90 days is the default.

export const MIN_RETENTION_DAYS = 7;
export const MAX_RETENTION_DAYS = 365;
export const DEFAULT_RETENTION_DAYS = 90;

/** The days, or a 400 naming `path` when absent, not an integer, or outside 7..365. */
export function parseRetentionDays(value: number | undefined, path = "context_retention_days"): number {
  const issues: FieldIssue[] = [];
  if (value === undefined) issues.push({ path: [path], message: "Required" });
  else if (!Number.isInteger(value) || value < MIN_RETENTION_DAYS || value > MAX_RETENTION_DAYS) {
    issues.push({ path: [path], message: `Must be an integer from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}` });
  }
  if (value === undefined || issues.length > 0) throw validationError(issues);
  return value;
}

/** The earliest last call a customer may have to be matched at `now`. */
export function matchableSince(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}
