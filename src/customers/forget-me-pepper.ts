import { randomBytes } from "node:crypto";
import { FORGET_ME_PEPPER_SETTING } from "../secrets/sealed-settings.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Db } from "../store/database.ts";
import { insertSettingOnce, readSetting } from "../store/settings-repository.ts";

/**
 * The key of the "do not remember" hashes (src/domain/forget-me.ts): made on the first start, shared by every
 * instance, stored sealed, so resealing under a new secrets key keeps every mark's hash valid.
 */
export async function forgetMePepper(db: Db, secrets: SecretBox): Promise<Buffer> {
  await insertSettingOnce(db, FORGET_ME_PEPPER_SETTING, secrets.seal(randomBytes(32).toString("base64")));
  const stored = await readSetting(db, FORGET_ME_PEPPER_SETTING);
  if (stored === undefined) throw new Error("the forget-me pepper could not be stored");
  return Buffer.from(secrets.open(stored), "base64");
}
