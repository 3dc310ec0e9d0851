import type { ApiKeySummary } from "../domain/account.ts";
import { DomainError } from "../domain/domain-error.ts";
import { revokeApiKey } from "../store/api-key-repository.ts";
import { apiKeyRowToSummary } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/** Revokes a key at once on this instance; revoking twice keeps the first time. */
export async function revokeKey(
  deps: Pick<AccountDeps, "db" | "clock" | "keys">,
  keyId: string,
): Promise<ApiKeySummary> {
  const row = keyId === "" ? undefined : await revokeApiKey(deps.db, keyId, deps.clock.now());
  if (row === undefined) throw new DomainError("not_found", `Key '${keyId}' not found`);
  deps.keys.forgetAll();
  return apiKeyRowToSummary(row);
}
