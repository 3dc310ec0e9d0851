import type { AccountDeps } from "../accounts/account-deps.ts";
import { DomainError } from "../domain/domain-error.ts";
import type { Integration } from "../domain/integration.ts";
import { deleteIntegrationRow } from "../store/integration-repository.ts";
import { integrationRowToIntegration } from "./integration-rows.ts";

/**
 * Removes an integration: its webhook URL answers 401 from then on (at once
 * on this instance). An owner's account, when given, must hold it.
 */
export async function deleteIntegration(
  deps: Pick<AccountDeps, "db" | "keys">,
  integrationId: string,
  ownerAccountId?: string,
): Promise<Integration> {
  const row = await deleteIntegrationRow(deps.db, integrationId, ownerAccountId);
  if (row === undefined) throw new DomainError("not_found", `Integration '${integrationId}' not found`);
  deps.keys.forgetAll();
  return integrationRowToIntegration(row);
}
