import type { ApiKeySummary } from "../domain/account.ts";
import { listApiKeys } from "../store/api-key-repository.ts";
import { apiKeyRowToSummary } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";
import { getAccount } from "./get-account.ts";

/** The account's keys, oldest first, revoked ones included; never a secret. */
export async function listKeys(
  deps: Pick<AccountDeps, "db" | "clock" | "monthlyQuota">,
  accountId: string,
): Promise<ApiKeySummary[]> {
  await getAccount(deps, accountId);
  return (await listApiKeys(deps.db, accountId)).map(apiKeyRowToSummary);
}
