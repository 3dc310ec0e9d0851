import type { AppContext } from "../context.ts";
import { DomainError, type FieldIssue, validationError } from "../domain/domain-error.ts";
import { checkText } from "../domain/field-checks.ts";
import type { Mode } from "../domain/tenant.ts";
import { createApiKey } from "../store/admin-operations.ts";
import { findAccountKey, listApiKeys, revokeApiKey } from "../store/api-key-repository.ts";
import type { ApiKeyRow } from "../store/schema.ts";

// An account's own keys, as its people see them in the dashboard: every
// operation names the account, and a key of another account is not found.

export const MAX_KEY_NAME_LENGTH = 100;

export type KeyStatus =
  | { readonly state: "active" }
  | { readonly state: "expiring"; readonly at: Date }
  | { readonly state: "revoked"; readonly at: Date };

export interface OwnedKey {
  readonly keyId: string;
  readonly name: string;
  readonly kind: Mode;
  readonly prefix: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly status: KeyStatus;
}

export function keyStatus(row: ApiKeyRow, now: Date): KeyStatus {
  if (row.revoked_at !== null) return { state: "revoked", at: row.revoked_at };
  if (row.expires_at !== null) {
    return row.expires_at <= now ? { state: "revoked", at: row.expires_at } : { state: "expiring", at: row.expires_at };
  }
  return { state: "active" };
}

/** Newest first. */
export async function listOwnedKeys(app: AppContext, accountId: string): Promise<OwnedKey[]> {
  const now = app.clock.now();
  const rows = await listApiKeys(app.database.db, accountId);
  return rows.reverse().map((row) => ({
    keyId: row.id,
    name: row.name,
    kind: row.kind,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    status: keyStatus(row, now),
  }));
}

export function parseKeyInput(input: { name: string; kind: string }): { name: string; kind: Mode } {
  const issues: FieldIssue[] = [];
  const name = input.name.trim();
  if (name === "") issues.push({ path: ["name"], message: "Name is required" });
  checkText(issues, ["name"], name, MAX_KEY_NAME_LENGTH);
  if (input.kind !== "test" && input.kind !== "prod") issues.push({ path: ["kind"], message: "Choose test or prod" });
  if (issues.length > 0) throw validationError(issues);
  return { name, kind: input.kind as Mode };
}

export async function createOwnedKey(app: AppContext, accountId: string, input: { name: string; kind: string }) {
  const { name, kind } = parseKeyInput(input);
  const key = await createApiKey(app.database.db, accountId, kind, app.clock.now(), name);
  return { keyId: key.keyId, secret: key.secret, name, kind };
}

/** The account's key, still usable; not_found for another account's key or a revoked one. */
export async function findLiveKey(app: AppContext, accountId: string, keyId: string): Promise<ApiKeyRow> {
  const row = keyId.length > 100 ? undefined : await findAccountKey(app.database.db, accountId, keyId);
  if (row === undefined) throw new DomainError("not_found", "No such key");
  if (keyStatus(row, app.clock.now()).state === "revoked") {
    throw new DomainError("failed_precondition", "This key is already revoked");
  }
  return row;
}

export async function revokeOwnedKey(app: AppContext, accountId: string, keyId: string): Promise<ApiKeyRow> {
  const row = await findLiveKey(app, accountId, keyId);
  await revokeApiKey(app.database.db, row.id, app.clock.now());
  app.keys.forgetAll();
  return row;
}
