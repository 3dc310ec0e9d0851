import { type FieldIssue, validationError } from "../domain/domain-error.ts";
import { checkText } from "../domain/field-checks.ts";
import { MAX_ACCOUNT_NAME_LENGTH } from "../domain/limits.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../domain/password.ts";
import { judgePassword } from "../domain/password-strength.ts";

// The checks a sign-up form's fields must pass, each reported by its form label.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function checkEmail(issues: FieldIssue[], email: string): void {
  if (email === "") issues.push({ path: ["email"], message: "Email is required" });
  else if (email.length > 254 || !EMAIL.test(email))
    issues.push({ path: ["email"], message: "Enter a valid email address" });
}

/** Length first, then strength: the same rule at sign-up, at a change and at a reset. */
export function checkNewPassword(
  issues: FieldIssue[],
  password: string,
  path = "password",
  knownWords: readonly string[] = [],
): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    issues.push({ path: [path], message: `Password must be at least ${MIN_PASSWORD_LENGTH} characters` });
  } else if (password.length > MAX_PASSWORD_LENGTH) {
    issues.push({ path: [path], message: `Password must be at most ${MAX_PASSWORD_LENGTH} characters` });
  } else {
    const verdict = judgePassword(password, knownWords);
    if (!verdict.strong)
      issues.push({ path: [path], message: `This password is too easy to guess. ${verdict.advice}` });
  }
}

export function checkAccountName(issues: FieldIssue[], name: string): void {
  if (name === "") issues.push({ path: ["account_name"], message: "Account name is required" });
  checkText(issues, ["account_name"], name, MAX_ACCOUNT_NAME_LENGTH);
}

export function throwIfAny(issues: FieldIssue[]): void {
  if (issues.length > 0) throw validationError(issues);
}
