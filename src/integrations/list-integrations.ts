import type { AccountDeps } from "../accounts/account-deps.ts";
import { getAccount } from "../accounts/get-account.ts";
import type { Integration } from "../domain/integration.ts";
import { listIntegrationRows } from "../store/integration-repository.ts";
import { integrationRowToIntegration } from "./integration-rows.ts";

/** An account's integrations with their webhook paths; secrets are never listed. */
export async function listIntegrations(
  deps: Pick<AccountDeps, "db" | "clock" | "monthlyQuota">,
  accountId: string,
): Promise<Integration[]> {
  await getAccount(deps, accountId);
  return (await listIntegrationRows(deps.db, accountId)).map(integrationRowToIntegration);
}
