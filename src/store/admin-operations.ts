import { displayPrefix, generateApiKey, hashSecret, randomBase62 } from "../domain/api-key.ts";
import type { Mode } from "../domain/tenant.ts";
import type { Tier } from "../domain/tiers.ts";
import { insertAccount, quotaPeriodOf } from "./account-repository.ts";
import { insertApiKey } from "./api-key-repository.ts";
import type { Db } from "./database.ts";
import type { AccountRow } from "./schema.ts";

// Creating accounts and keys: ids are prefixed so a glance tells them apart.

export async function createAccount(
  db: Db,
  init: { name: string; tier: Tier; quota: number },
  now: Date,
): Promise<AccountRow> {
  return insertAccount(db, {
    id: `acct_${randomBase62(16)}`,
    billing_account_id: `ba_${randomBase62(16)}`,
    name: init.name,
    tier: init.tier,
    quota_remaining: init.quota,
    quota_period: quotaPeriodOf(now),
    created_at: now,
  });
}

/** Creates a key; the secret is returned here once and stored only as a hash. */
export async function createApiKey(db: Db, accountId: string, mode: Mode, now: Date, name = "") {
  const secret = generateApiKey(mode);
  const row = await insertApiKey(db, {
    id: `key_${randomBase62(16)}`,
    account_id: accountId,
    kind: mode,
    secret_hash: hashSecret(secret),
    prefix: displayPrefix(secret),
    created_at: now,
    name,
  });
  return { keyId: row.id, secret, mode, accountId };
}
