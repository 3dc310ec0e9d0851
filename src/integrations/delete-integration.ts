import type { AccountDeps } from "../accounts/account-deps.ts";
import { DomainError } from "../domain/domain-error.ts";
import { deleteIntegrationRow } from "../store/integration-repository.ts";

/** Removes an integration: its webhook URL answers 401 from then on. */
export async function deleteIntegration(deps: Pick<AccountDeps, "db">, integrationId: string): Promise<void> {
  if (!(await deleteIntegrationRow(deps.db, integrationId))) {
    throw new DomainError("not_found", `Integration '${integrationId}' not found`);
  }
}
