import type { Issues } from "./field-checks.ts";

// The spec asks clients to keep payment card numbers, national identifiers and
// passwords out of what they store. This guard catches what can be recognised
// from the text alone, in every free-text field a client stores: card numbers
// (by Luhn) and the national identifiers listed in NATIONAL_IDS.

export type SensitiveDataPolicy = "reject" | "redact" | "off";

export const REDACTED = "[REDACTED]";

export const SENSITIVE_MESSAGE =
  "Looks like a payment card number or national identifier; such data must not be stored";

// UUIDs (customer refs, call ids) are taken out first: their digit groups could pass Luhn by chance.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
// Digit groups joined by spaces, dots, slashes or dashes ("4111.1111/1111-1111"). Letters around the digits
// do not hide them ("cc4111111111111111", "4111111111111111x"): a card number is looked for in the digits alone.
const DIGIT_GROUPS = /\d+(?:[ ./-]{1,3}\d+)*/g;
const SEPARATORS = /[ ./-]+/;

/**
 * National identifiers recognised by their written form:
 * - US social security number, AAA-GG-SSSS with dashes, spaces, dots or slashes (one kind throughout),
 *   without the ranges the SSA never issues; nine bare digits are not taken (order and account numbers).
 * - UK National Insurance number, QQ 12 34 56 C, with or without spaces, prefixes as HMRC allocates them.
 */
const NATIONAL_IDS: readonly RegExp[] = [
  /(?<!\d)(?!000|666|9\d\d)\d{3}([ ./-])(?!00)\d{2}\1(?!0000)\d{4}(?!\d)/,
  /(?<![A-Za-z])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/,
];

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
  const text = value.replace(UUID, " ");
  if (NATIONAL_IDS.some((pattern) => pattern.test(text))) return true;
  for (const run of text.matchAll(DIGIT_GROUPS)) {
    if (containsCardNumber(run[0].split(SEPARATORS))) return true;
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

/**
 * Applies the policy to a stored text (a variable's value or source, a resolution's reference): records an
 * issue, redacts, or passes it through.
 */
export function screenVariableValue(
  issues: Issues,
  path: string[],
  value: string,
  policy: SensitiveDataPolicy,
): string {
  if (policy === "off" || !looksSensitive(value)) return value;
  if (policy === "redact") return REDACTED;
  issues.push({ path, message: SENSITIVE_MESSAGE });
  return value;
}

/**
 * A name the stored data is keyed by (a variable's name, an intent) is refused whatever the policy but "off":
 * redacting it would merge distinct entries under one name.
 */
export function screenName(issues: Issues, path: string[], name: string, policy: SensitiveDataPolicy): void {
  if (policy !== "off" && looksSensitive(name)) issues.push({ path, message: SENSITIVE_MESSAGE });
}
