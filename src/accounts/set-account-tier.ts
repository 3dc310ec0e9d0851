import type { Account } from "../domain/account.ts";
import { updateAccount } from "../store/account-repository.ts";
import { accountNotFound, accountRowToAccount, parseTier } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

/** Moves the account to another tier; its limits apply at once on this instance. */
export async function setAccountTier(
  deps: Pick<AccountDeps, "db" | "keys">,
  input: { readonly accountId: string; readonly tier: string },
): Promise<Account> {
  const tier = parseTier(input.tier);
  const row = await updateAccount(deps.db, input.accountId, { tier });
  if (row === undefined) throw accountNotFound(input.accountId);
  // The tier travels with cached keys.
  deps.keys.forgetAll();
  return accountRowToAccount(row);
}
