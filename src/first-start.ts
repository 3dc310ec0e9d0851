import { setTimeout as sleep } from "node:timers/promises";
import { createAccount } from "./accounts/create-account.ts";
import { createKey } from "./accounts/create-key.ts";
import type { Config } from "./config.ts";
import { hashSecret, randomBase62 } from "./domain/api-key.ts";
import { DomainError } from "./domain/domain-error.ts";
import { countAccounts } from "./store/account-repository.ts";
import type { Db } from "./store/database.ts";
import { deleteSetting, insertSettingOnce, readSetting, replaceSetting } from "./store/settings-repository.ts";

const ADMIN_TOKEN_SETTING = "admin_token_sha256";
/**
 * Written with the first start's secrets and removed once they are printed: while it stands, they were never
 * shown, and the next start creates them again. Its value is the default account's id ("" when none).
 */
const UNSHOWN_SETTING = "first_start_unshown";
/**
 * How long a start that finds the secrets unshown waits for another start to show them: an instance started
 * together with the one that created them sees them unshown for the milliseconds it takes to print them.
 * Only a start after a crash waits this long.
 */
export const SHOWING_GRACE_MS = 10_000;

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
 * token does this; the others read it. Secrets created but never shown (the
 * process died before printing them) are created again: a new token, and a
 * new key for the default account.
 */
export async function ensureAdminAccess(
  db: Db,
  config: Config,
  now: Date,
  /** Told when this start waits for another to show the secrets. */
  onWaiting: () => void = () => {},
): Promise<AdminAccess> {
  if (config.adminToken !== undefined) return { adminTokenHash: hashSecret(config.adminToken) };
  const stored = await readSetting(db, ADMIN_TOKEN_SETTING);
  if (stored !== undefined) {
    if (!(await staysUnshown(db, onWaiting)))
      return { adminTokenHash: (await readSetting(db, ADMIN_TOKEN_SETTING)) ?? stored };
    return createAgain(db, config, now, stored);
  }

  const adminToken = `adm_${randomBase62(40)}`;
  const adminTokenHash = hashSecret(adminToken);
  return db.transaction().execute(async (trx) => {
    if (!(await insertSettingOnce(trx, ADMIN_TOKEN_SETTING, adminTokenHash))) {
      return { adminTokenHash: (await readSetting(trx, ADMIN_TOKEN_SETTING)) ?? adminTokenHash };
    }
    if ((await countAccounts(trx)) > 0) {
      await insertSettingOnce(trx, UNSHOWN_SETTING, "");
      return { adminTokenHash, firstStart: { adminToken } };
    }
    const deps = { db: trx, clock: { now: () => now }, keys: { forgetAll() {} }, monthlyQuota: config.monthlyQuota };
    const account = await createAccount(deps, { name: "Default" });
    const key = await createKey(deps, { accountId: account.accountId, kind: "test" });
    await insertSettingOnce(trx, UNSHOWN_SETTING, account.accountId);
    return {
      adminTokenHash,
      firstStart: { adminToken, defaultAccount: { accountId: account.accountId, apiKey: key.apiKey } },
    };
  });
}

/** Called once the first start's secrets are printed: later starts neither show nor create them again. */
export async function markFirstStartShown(db: Db): Promise<void> {
  await deleteSetting(db, UNSHOWN_SETTING);
}

/** Whether the secrets are still unshown once another start has had time to show them. */
async function staysUnshown(db: Db, onWaiting: () => void): Promise<boolean> {
  if ((await readSetting(db, UNSHOWN_SETTING)) === undefined) return false;
  onWaiting();
  const deadline = Date.now() + SHOWING_GRACE_MS;
  do {
    if (Date.now() >= deadline) return true;
    await sleep(200);
  } while ((await readSetting(db, UNSHOWN_SETTING)) !== undefined);
  return false;
}

async function createAgain(db: Db, config: Config, now: Date, stored: string): Promise<AdminAccess> {
  return db.transaction().execute(async (trx) => {
    // Taken by one of several instances starting together; the others read the token it stores.
    const accountId = await deleteSetting(trx, UNSHOWN_SETTING);
    if (accountId === undefined) return { adminTokenHash: (await readSetting(trx, ADMIN_TOKEN_SETTING)) ?? stored };
    const adminToken = `adm_${randomBase62(40)}`;
    const adminTokenHash = hashSecret(adminToken);
    await replaceSetting(trx, ADMIN_TOKEN_SETTING, stored, adminTokenHash);
    await insertSettingOnce(trx, UNSHOWN_SETTING, accountId);
    if (accountId === "") return { adminTokenHash, firstStart: { adminToken } };
    const deps = { db: trx, clock: { now: () => now }, keys: { forgetAll() {} }, monthlyQuota: config.monthlyQuota };
    // The key created with the secrets never shown stays unknown to anyone; this one is printed in its place
    // (none when the account has been deleted since).
    const key = await createKey(deps, { accountId, kind: "test" }).catch((error) => {
      if (error instanceof DomainError && error.code === "not_found") return undefined;
      throw error;
    });
    if (key === undefined) return { adminTokenHash, firstStart: { adminToken } };
    return { adminTokenHash, firstStart: { adminToken, defaultAccount: { accountId, apiKey: key.apiKey } } };
  });
}
