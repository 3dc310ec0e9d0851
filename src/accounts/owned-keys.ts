import type { ApiKeySummary } from "../domain/account.ts";
import { DomainError, type FieldIssue, validationError } from "../domain/domain-error.ts";
import { checkText } from "../domain/field-checks.ts";
import { findAccountKey } from "../store/api-key-repository.ts";
import { apiKeyRowToSummary } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";
import { createKey } from "./create-key.ts";
import { listKeys } from "./list-keys.ts";
import { revokeKey } from "./revoke-key.ts";

// An account's own keys, as its people see them in the dashboard: the same
// use cases as the admin API, each scoped to the signed-in account, where a
// key of another account is not found.

const MAX_KEY_NAME_LENGTH = 100;

export type KeyStatus =
  | { readonly state: "active" }
  | { readonly state: "expiring"; readonly at: Date }
  | { readonly state: "revoked"; readonly at: Date };

export interface OwnedKey extends ApiKeySummary {
  readonly status: KeyStatus;
}

function keyStatus(key: ApiKeySummary, now: Date): KeyStatus {
  if (key.revokedAt !== null) return { state: "revoked", at: key.revokedAt };
  if (key.expiresAt !== null) {
    return key.expiresAt <= now ? { state: "revoked", at: key.expiresAt } : { state: "expiring", at: key.expiresAt };
  }
  return { state: "active" };
}

/** Newest first. */
export async function listOwnedKeys(deps: AccountDeps, accountId: string): Promise<OwnedKey[]> {
  const now = deps.clock.now();
  const keys = await listKeys(deps, accountId);
  return keys.reverse().map((key) => ({ ...key, status: keyStatus(key, now) }));
}

export async function createOwnedKey(deps: AccountDeps, accountId: string, input: { name: string; kind: string }) {
  const issues: FieldIssue[] = [];
  const name = input.name.trim();
  if (name === "") issues.push({ path: ["name"], message: "Name is required" });
  checkText(issues, ["name"], name, MAX_KEY_NAME_LENGTH);
  if (input.kind !== "test" && input.kind !== "prod") issues.push({ path: ["kind"], message: "Choose test or prod" });
  if (issues.length > 0) throw validationError(issues);
  const key = await createKey(deps, { accountId, kind: input.kind, name });
  return { keyId: key.keyId, secret: key.apiKey, name, kind: key.kind };
}

/** The account's key, still usable; not_found for another account's key. */
export async function findLiveKey(deps: AccountDeps, accountId: string, keyId: string): Promise<OwnedKey> {
  const row = keyId.length > 100 ? undefined : await findAccountKey(deps.db, accountId, keyId);
  if (row === undefined) throw new DomainError("not_found", "No such key");
  const key = apiKeyRowToSummary(row);
  const status = keyStatus(key, deps.clock.now());
  if (status.state === "revoked") throw new DomainError("failed_precondition", "This key is already revoked");
  return { ...key, status };
}

export async function revokeOwnedKey(deps: AccountDeps, accountId: string, keyId: string): Promise<OwnedKey> {
  const key = await findLiveKey(deps, accountId, keyId);
  await revokeKey(deps, key.keyId);
  return key;
}
