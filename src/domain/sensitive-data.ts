import type { Issues } from "./field-checks.ts";

// The spec asks clients to keep payment card numbers, national identifiers and
// passwords out of variables. This guard catches the two that can be
// recognised from the value alone: card numbers and US social security numbers.

export type SensitiveDataPolicy = "reject" | "redact" | "off";

export const REDACTED = "[REDACTED]";

// 13-19 digits, optionally grouped by single spaces or dashes.
const CARD_CANDIDATE = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
// AAA-GG-SSSS with the ranges the SSA never issues left out.
const SSN = /(?<!\d)(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?!\d)/;

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export function looksSensitive(value: string): boolean {
  if (SSN.test(value)) return true;
  for (const match of value.matchAll(CARD_CANDIDATE)) {
    if (passesLuhn(match[0].replace(/[ -]/g, ""))) return true;
  }
  return false;
}

/** Applies the policy to one variable value: records an issue, redacts, or passes it through. */
export function screenVariableValue(
  issues: Issues,
  path: string[],
  value: string,
  policy: SensitiveDataPolicy,
): string {
  if (policy === "off" || !looksSensitive(value)) return value;
  if (policy === "redact") return REDACTED;
  issues.push({
    path,
    message: "Looks like a payment card number or national identifier; such data must not be stored",
  });
  return value;
}
