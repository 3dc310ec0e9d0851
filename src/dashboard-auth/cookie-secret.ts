import { randomBytes } from "node:crypto";
import type { Db } from "../store/database.ts";
import { insertSettingOnce, readSetting } from "../store/settings-repository.ts";

const SETTING = "dashboard_cookie_secret";

/** The key that signs the dashboard's CSRF cookie: made on first start, shared by every instance. */
export async function dashboardCookieSecret(db: Db): Promise<string> {
  await insertSettingOnce(db, SETTING, randomBytes(32).toString("base64url"));
  const secret = await readSetting(db, SETTING);
  if (secret === undefined) throw new Error("the dashboard cookie secret could not be stored");
  return secret;
}
