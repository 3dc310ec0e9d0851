import type { Account, ApiKeySummary } from "../domain/account.ts";
import { MAX_QUOTA } from "../domain/account.ts";
import { DomainError, type FieldIssue, validationError } from "../domain/domain-error.ts";
import type { Mode } from "../domain/tenant.ts";
import { isTier, TIERS, type Tier } from "../domain/tiers.ts";
import type { AccountWithCredits } from "../store/account-repository.ts";
import type { ApiKeyRow } from "../store/schema.ts";

// Checks and row mappers shared by the account use cases.

const tierMessage = `Expected one of: ${TIERS.join(", ")}`;
const kindMessage = "Expected one of: test, prod";

export function parseTier(value: string, path = "tier"): Tier {
  if (!isTier(value)) throw invalid([path], tierMessage);
  return value;
}

export function parseKind(value: string): Mode {
  if (!isKind(value)) throw invalid(["kind"], kindMessage);
  return value;
}

/** Collects a tier outside the set with the request's other issues instead of throwing. */
export function checkTier(issues: FieldIssue[], value: string, path = "tier"): void {
  if (!isTier(value)) issues.push({ path: [path], message: tierMessage });
}

/** Collects a key kind outside the set with the request's other issues instead of throwing. */
export function checkKind(issues: FieldIssue[], value: string): void {
  if (!isKind(value)) issues.push({ path: ["kind"], message: kindMessage });
}

function isKind(value: string): value is Mode {
  return value === "test" || value === "prod";
}

export function checkQuota(issues: FieldIssue[], path: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_QUOTA) {
    issues.push({ path: [path], message: `Must be an integer from 0 to ${MAX_QUOTA}` });
  }
}

export function invalid(path: string[], message: string): DomainError {
  return validationError([{ path, message }]);
}

export function accountNotFound(id: string): DomainError {
  return new DomainError("not_found", `Account '${id}' not found`);
}

export function accountRowToAccount(row: AccountWithCredits): Account {
  return {
    accountId: row.id,
    billingAccountId: row.billing_account_id,
    name: row.name,
    tier: parseTier(row.tier),
    quotaRemaining: row.credits,
    contextRetentionDays: row.context_retention_days,
    repeatWindowDays: row.repeat_window_days,
  };
}

export function apiKeyRowToSummary(row: ApiKeyRow): ApiKeySummary {
  return {
    keyId: row.id,
    accountId: row.account_id,
    kind: row.kind,
    prefix: row.prefix,
    revoked: row.revoked_at !== null,
    name: row.name,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
  };
}
