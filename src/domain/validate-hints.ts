import type { IdentityHintsInput } from "./call.ts";
import { checkMaxEntries, checkNotEmpty, checkText, type Issues } from "./field-checks.ts";
import {
  MAX_CUSTOMER_REF_LENGTH,
  MAX_EXTERNAL_ID_KEY_LENGTH,
  MAX_EXTERNAL_ID_VALUE_LENGTH,
  MAX_EXTERNAL_IDS,
  MAX_PHONE_LENGTH,
} from "./limits.ts";

export function hasIdentifier(hints: IdentityHintsInput | undefined): boolean {
  if (hints === undefined) return false;
  return (
    (hints.ani !== undefined && hints.ani !== "") ||
    (hints.customerRef !== undefined && hints.customerRef !== "") ||
    Object.keys(hints.externalIds).length > 0
  );
}

/** Field-level checks of identity_hints; presence rules belong to the caller. */
export function checkIdentityHints(issues: Issues, hints: IdentityHintsInput): void {
  const base = ["identity_hints"];
  checkNotEmpty(issues, [...base, "ani"], hints.ani);
  checkText(issues, [...base, "ani"], hints.ani, MAX_PHONE_LENGTH);
  checkNotEmpty(issues, [...base, "dnis"], hints.dnis);
  checkText(issues, [...base, "dnis"], hints.dnis, MAX_PHONE_LENGTH);
  checkNotEmpty(issues, [...base, "customer_ref"], hints.customerRef);
  checkText(issues, [...base, "customer_ref"], hints.customerRef, MAX_CUSTOMER_REF_LENGTH);
  const entries = Object.entries(hints.externalIds);
  checkMaxEntries(issues, [...base, "external_ids"], entries.length, MAX_EXTERNAL_IDS);
  for (const [key, value] of entries) {
    const path = [...base, "external_ids", key];
    if (key === "") issues.push({ path, message: "Key must not be empty" });
    checkText(issues, path, key, MAX_EXTERNAL_ID_KEY_LENGTH);
    checkNotEmpty(issues, path, value);
    checkText(issues, path, value, MAX_EXTERNAL_ID_VALUE_LENGTH);
  }
}
