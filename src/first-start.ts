import { createAccount } from "./accounts/create-account.ts";
import { createKey } from "./accounts/create-key.ts";
import type { Config } from "./config.ts";
import { hashSecret, randomBase62 } from "./domain/api-key.ts";
import { countAccounts } from "./store/account-repository.ts";
import type { Db } from "./store/engine/database.ts";
import { insertSettingOnce, readSetting } from "./store/settings-repository.ts";

const ADMIN_TOKEN_SETTING = "admin_token_sha256";

export interface AdminAccess {
  readonly adminTokenHash: string;
  /** Set only on the very first start: the secrets to print once. */
  readonly firstStart?: {
    readonly adminToken: string;
    readonly defaultAccount?: { readonly accountId: string; readonly apiKey: string };
  };
}

/**
 * The admin token in force: ADMIN_TOKEN when set; otherwise the one stored on
 * the first start. A first start with an empty database and no ADMIN_TOKEN
 * also creates a default account with an sk_test_ key, so a newcomer can make
 * a call at once. Of instances starting together, the one that stores the
 * token does this; the others read it.
 */
export async function ensureAdminAccess(db: Db, config: Config, now: Date): Promise<AdminAccess> {
  if (config.adminToken !== undefined) return { adminTokenHash: hashSecret(config.adminToken) };
  const stored = await readSetting(db, ADMIN_TOKEN_SETTING);
  if (stored !== undefined) return { adminTokenHash: stored };

  const adminToken = `adm_${randomBase62(40)}`;
  const adminTokenHash = hashSecret(adminToken);
  return db.transaction().execute(async (trx) => {
    if (!(await insertSettingOnce(trx, ADMIN_TOKEN_SETTING, adminTokenHash))) {
      return { adminTokenHash: (await readSetting(trx, ADMIN_TOKEN_SETTING)) ?? adminTokenHash };
    }
    if ((await countAccounts(trx)) > 0) return { adminTokenHash, firstStart: { adminToken } };
    const deps = { db: trx, clock: { now: () => now }, keys: { forgetAll() {} }, monthlyQuota: config.monthlyQuota };
    const account = await createAccount(deps, { name: "Default" });
    const key = await createKey(deps, { accountId: account.accountId, kind: "test" });
    return {
      adminTokenHash,
      firstStart: { adminToken, defaultAccount: { accountId: account.accountId, apiKey: key.apiKey } },
    };
  });
}
