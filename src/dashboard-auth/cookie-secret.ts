import { randomBytes } from "node:crypto";
import { COOKIE_SECRET_SETTING } from "../secrets/sealed-settings.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Db } from "../store/database.ts";
import { insertSettingOnce, readSetting } from "../store/settings-repository.ts";

/** The key that signs the dashboard's CSRF cookie: made on first start, shared by every instance, stored sealed. */
export async function dashboardCookieSecret(db: Db, secrets: SecretBox): Promise<string> {
  await insertSettingOnce(db, COOKIE_SECRET_SETTING, secrets.seal(randomBytes(32).toString("base64url")));
  const secret = await readSetting(db, COOKIE_SECRET_SETTING);
  if (secret === undefined) throw new Error("the dashboard cookie secret could not be stored");
  return secrets.open(secret);
}
