import type { FieldIssue } from "./domain-error.ts";
import { refuseOffendingFields } from "./offending-fields.ts";

// The account's repeat window: a call from the same customer within it is a repeat contact, and a call within
// it that saves a resolved issue open again reopens that issue (docs/analytics.md). 7 days is the usual
// definition of a failed first contact.

export const MIN_REPEAT_WINDOW_DAYS = 1;
export const MAX_REPEAT_WINDOW_DAYS = 30;
export const DEFAULT_REPEAT_WINDOW_DAYS = 7;

/** Whether `days` is a repeat window an account may have: an integer from 1 to 30. */
export function isRepeatWindowDays(days: number): boolean {
  return Number.isInteger(days) && days >= MIN_REPEAT_WINDOW_DAYS && days <= MAX_REPEAT_WINDOW_DAYS;
}

/**
 * The days, or a 400 naming `path` when absent, not an integer, or outside 1..30, together with what the host
 * could not decode of the request.
 */
export function parseRepeatWindowDays(
  value: number | undefined,
  path = "repeat_window_days",
  decodeIssues: readonly FieldIssue[] = [],
): number {
  const issues: FieldIssue[] = [];
  if (value === undefined) issues.push({ path: [path], message: "Required" });
  else if (!isRepeatWindowDays(value)) {
    issues.push({
      path: [path],
      message: `Must be an integer from ${MIN_REPEAT_WINDOW_DAYS} to ${MAX_REPEAT_WINDOW_DAYS}`,
    });
  }
  refuseOffendingFields(issues, decodeIssues);
  // Absent was refused just above.
  return value as number;
}
