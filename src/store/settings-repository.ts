import type { Db } from "./database.ts";

export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db.selectFrom("settings").select("value").where("name", "=", name).executeTakeFirst();
  return row?.value;
}

/** Stores the value unless one is there already; returns whether this call stored it. */
export async function insertSettingOnce(db: Db, name: string, value: string): Promise<boolean> {
  const row = await db
    .insertInto("settings")
    .values({ name, value })
    .onConflict((oc) => oc.column("name").doNothing())
    .returning("name")
    .executeTakeFirst();
  return row !== undefined;
}

/** Replaces a setting only if it still holds `stored`. */
export async function replaceSetting(db: Db, name: string, stored: string, value: string): Promise<void> {
  await db.updateTable("settings").set({ value }).where("name", "=", name).where("value", "=", stored).execute();
}

/** Removes a setting; returns the value it held, or undefined when there was none (or another removed it first). */
export async function deleteSetting(db: Db, name: string): Promise<string | undefined> {
  const row = await db.deleteFrom("settings").where("name", "=", name).returning("value").executeTakeFirst();
  return row?.value;
}
