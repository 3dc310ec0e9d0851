import type { CallIntent, OpenIntent, StoredVariable } from "./call.ts";
import { isCustomerRef } from "./customer-ref.ts";
import { DomainError, type FieldIssue, validationError } from "./domain-error.ts";
import { checkText, type Issues } from "./field-checks.ts";
import { MAX_EXTERNAL_ID_KEY_LENGTH, MAX_EXTERNAL_ID_VALUE_LENGTH, MAX_PHONE_LENGTH } from "./limits.ts";
import { normalizePhoneNumber } from "./phone-number.ts";

// A customer record as the customer operations read and show it, and the
// identifier a lookup or an unlink names.

export interface CustomerIdentifier {
  readonly kind: "ani" | "external_id";
  /** The external id's key; empty for ani. */
  readonly namespace: string;
  readonly value: string;
}

export interface ResolvedIntent {
  readonly intent: string;
  readonly resolutionType: string | null;
  readonly resolutionExternalReference: string | null;
  readonly resolvedAt: Date;
}

export interface CustomerCall {
  readonly callId: string;
  readonly callStart: Date;
  readonly callEnd: Date | null;
  readonly summary: string | null;
  readonly intents: readonly CallIntent[];
}

export interface CustomerRecord {
  readonly customerRef: string;
  readonly createdAt: Date;
  readonly lastCallAt: Date;
  readonly ani: readonly string[];
  readonly externalIds: readonly (readonly [string, string])[];
  readonly openIntents: readonly OpenIntent[];
  readonly resolvedIntents: readonly ResolvedIntent[];
  readonly variables: Readonly<Record<string, StoredVariable>>;
  readonly calls: readonly CustomerCall[];
}

export interface CustomerSummary {
  readonly customerRef: string;
  readonly lastCallAt: Date;
}

/** How many of a customer's calls the record shows, newest first. */
export const RECORD_CALLS = 20;

/** The error for a ref that names no live customer of the tenant (or is not a UUID at all). */
export function customerNotFound(ref: string): DomainError {
  return new DomainError("not_found", `Customer '${ref}' not found`);
}

/** A customer_ref from a path: a UUID in lower case, or not found. */
export function customerRefOf(ref: string): string {
  if (!isCustomerRef(ref)) throw customerNotFound(ref);
  return ref.toLowerCase();
}

/** The query parameters naming an identifier, with what the host could not decode of the request. */
export interface IdentifierQuery {
  readonly ani?: string;
  readonly externalId?: string;
  readonly decodeIssues?: readonly FieldIssue[];
}

/**
 * The identifier named by the query parameters `ani` or `external_id`
 * ("key:value", split at the first colon): exactly one of them. Numbers are
 * normalised as at start, so any spelling of a number finds it.
 */
export function identifierOf(query: IdentifierQuery, defaultRegion: string): CustomerIdentifier {
  // What the host could not decode comes first: one 400 names every offending field.
  const issues: Issues = [...(query.decodeIssues ?? [])];
  const given = [query.ani, query.externalId].filter((value) => value !== undefined && value !== "");
  if (given.length !== 1) issues.push({ path: [], message: "Give exactly one of ani, external_id" });
  checkText(issues, ["ani"], query.ani, MAX_PHONE_LENGTH);
  checkText(issues, ["external_id"], query.externalId, MAX_EXTERNAL_ID_KEY_LENGTH + 1 + MAX_EXTERNAL_ID_VALUE_LENGTH);
  const text = query.externalId ?? "";
  const colon = text.indexOf(":");
  if (!query.ani && text !== "" && (colon <= 0 || colon === text.length - 1)) {
    issues.push({ path: ["external_id"], message: "Expected key:value" });
  }
  if (issues.length > 0) throw validationError(issues);
  if (query.ani) {
    return { kind: "ani", namespace: "", value: normalizePhoneNumber(query.ani, defaultRegion).key };
  }
  return { kind: "external_id", namespace: text.slice(0, colon), value: text.slice(colon + 1) };
}
