import type { FieldIssue } from "./domain-error.ts";

// Small collectors shared by the request validators: each check appends an
// issue instead of throwing, so one response lists every problem at once.

export type Issues = FieldIssue[];

export function checkRequired(issues: Issues, path: string[], value: string | undefined): boolean {
  if (value === undefined || value === "") {
    issues.push({ path, message: "Required" });
    return false;
  }
  return true;
}

/**
 * A string the store can keep as sent: at most `max` characters, no NUL
 * (PostgreSQL text cannot hold U+0000) and no unpaired surrogate (it has no
 * UTF-8 form and would come back as U+FFFD).
 */
export function checkText(issues: Issues, path: string[], value: string | undefined, max: number): void {
  if (value === undefined) return;
  if (value.length > max) issues.push({ path, message: `Must be at most ${max} characters` });
  if (value.includes("\u0000") || !value.isWellFormed()) {
    issues.push({ path, message: "Must be valid Unicode text without NUL characters" });
  }
}

export function checkNotEmpty(issues: Issues, path: string[], value: string | undefined): void {
  if (value !== undefined && value === "") {
    issues.push({ path, message: "Must not be empty" });
  }
}

export function checkMaxEntries(issues: Issues, path: string[], count: number, max: number): void {
  if (count > max) {
    issues.push({ path, message: `Must have at most ${max} entries` });
  }
}
