import type { Db } from "../store/database.ts";
import { listSigningSecrets, replaceSigningSecret } from "../store/integration-repository.ts";
import { readSetting, replaceSetting } from "../store/settings-repository.ts";
import { COOKIE_SECRET_SETTING, FORGET_ME_PEPPER_SETTING } from "./sealed-settings.ts";
import type { SecretBox } from "./secret-box.ts";

// Run at every start, once the schema is in place: a secret stored in plain
// text (before secrets were sealed) or sealed with a previous key is sealed
// again with the current one. After one start with a new SECRETS_KEY, the
// previous key is no longer needed (docs/security.md, Key rotation).

export interface ResealReport {
  readonly resealed: number;
}

export async function resealSecrets(db: Db, secrets: SecretBox): Promise<ResealReport> {
  let resealed = 0;
  for (const row of await listSigningSecrets(db)) {
    if (secrets.isCurrent(row.signing_secret)) continue;
    await replaceSigningSecret(db, row.id, row.signing_secret, secrets.seal(secrets.open(row.signing_secret)));
    resealed++;
  }
  for (const row of await db.selectFrom("event_endpoints").select(["id", "secret", "previous_secret"]).execute()) {
    const stale = [row.secret, row.previous_secret].some((value) => value !== null && !secrets.isCurrent(value));
    if (!stale) continue;
    const reseal = (value: string | null) => (value === null ? null : secrets.seal(secrets.open(value)));
    await db
      .updateTable("event_endpoints")
      .set({ secret: reseal(row.secret) ?? row.secret, previous_secret: reseal(row.previous_secret) })
      .where("id", "=", row.id)
      .where("secret", "=", row.secret)
      .execute();
    resealed++;
  }
  for (const name of [COOKIE_SECRET_SETTING, FORGET_ME_PEPPER_SETTING]) {
    const stored = await readSetting(db, name);
    if (stored !== undefined && !secrets.isCurrent(stored)) {
      await replaceSetting(db, name, stored, secrets.seal(secrets.open(stored)));
      resealed++;
    }
  }
  return { resealed };
}
