import type { Account } from "../domain/account.ts";
import { randomBase62 } from "../domain/api-key.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { checkText } from "../domain/field-checks.ts";
import { MAX_ACCOUNT_NAME_LENGTH } from "../domain/limits.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import { insertAccount } from "../store/account-repository.ts";
import { accountRowToAccount, checkQuota, checkTier, parseTier } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";

export interface CreateAccountInput {
  readonly name: string;
  /** Defaults to "free". */
  readonly tier?: string;
  /** Credits for the current month; defaults to the tier's monthly allowance. */
  readonly quota?: number;
  /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
  readonly decodeIssues?: readonly FieldIssue[];
}

/** A new account with prefixed ids, so a glance tells an account from a billing account. */
export async function createAccount(deps: Omit<AccountDeps, "secrets">, input: CreateAccountInput): Promise<Account> {
  const name = input.name.trim();
  const issues: FieldIssue[] = [];
  if (name === "") issues.push({ path: ["name"], message: "Required" });
  checkText(issues, ["name"], name, MAX_ACCOUNT_NAME_LENGTH);
  if (input.quota !== undefined) checkQuota(issues, "quota", input.quota);
  checkTier(issues, input.tier ?? "free");
  refuseOffendingFields(issues, input.decodeIssues);
  const tier = parseTier(input.tier ?? "free");
  const now = deps.clock.now();
  const row = await insertAccount(
    deps.db,
    { id: `acct_${randomBase62(16)}`, billing_account_id: `ba_${randomBase62(16)}`, name, tier, created_at: now },
    input.quota ?? deps.monthlyQuota[tier],
  );
  return accountRowToAccount(row);
}
