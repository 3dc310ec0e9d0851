import type { Issues } from "./field-checks.ts";

// The spec asks clients to keep payment card numbers, national identifiers and
// passwords out of variables. This guard catches the two that can be
// recognised from the value alone: card numbers and US social security numbers.

export type SensitiveDataPolicy = "reject" | "redact" | "off";

export const REDACTED = "[REDACTED]";

// Runs of digit groups joined by single spaces or dashes ("4111 1111 1111 1111"),
// standing apart from letters: digits inside an identifier such as a UUID
// ("…-b582-4075157337f6") are not a card number written out.
const DIGIT_GROUPS = /(?<![0-9A-Za-z])\d+(?:[ -]\d+)*(?![0-9A-Za-z])/g;
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
  for (const run of value.matchAll(DIGIT_GROUPS)) {
    if (containsCardNumber(run[0].split(/[ -]/))) return true;
  }
  return false;
}

/**
 * A card number may sit among other digit groups ("4111 1111 1111 1111 12 25"),
 * so every sequence of whole groups holding 13-19 digits is checked.
 */
function containsCardNumber(groups: string[]): boolean {
  for (let first = 0; first < groups.length; first++) {
    let digits = "";
    for (let last = first; last < groups.length && digits.length < 19; last++) {
      digits += groups[last];
      if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) return true;
    }
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
