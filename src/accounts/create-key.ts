import type { CreatedKey } from "../domain/account.ts";
import { displayPrefix, generateApiKey, hashSecret, randomBase62 } from "../domain/api-key.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import { insertApiKey } from "../store/api-key-repository.ts";
import { checkKind, parseKind } from "./account-checks.ts";
import type { AccountDeps } from "./account-deps.ts";
import { getAccount } from "./get-account.ts";

/** A new key of the account; the secret is returned here once and stored only as a hash. */
export async function createKey(
  deps: Pick<AccountDeps, "db" | "clock" | "monthlyQuota">,
  input: {
    readonly accountId: string;
    /** Defaults to "test". */
    readonly kind?: string;
    /** Shown in the dashboard; empty when not given. */
    readonly name?: string;
    /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
    readonly decodeIssues?: readonly FieldIssue[];
  },
): Promise<CreatedKey> {
  const issues: FieldIssue[] = [];
  checkKind(issues, input.kind ?? "test");
  refuseOffendingFields(issues, input.decodeIssues);
  const kind = parseKind(input.kind ?? "test");
  await getAccount(deps, input.accountId);
  const apiKey = generateApiKey(kind);
  const row = await insertApiKey(deps.db, {
    id: `key_${randomBase62(16)}`,
    account_id: input.accountId,
    kind,
    secret_hash: hashSecret(apiKey),
    prefix: displayPrefix(apiKey),
    created_at: deps.clock.now(),
    name: input.name ?? "",
  });
  return { keyId: row.id, accountId: row.account_id, kind, apiKey };
}
