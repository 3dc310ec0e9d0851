import type { Insertable } from "kysely";
import type { Db } from "./database.ts";
import type { UserRow, UserTable } from "./schema.ts";

export async function insertUser(db: Db, row: Insertable<UserTable>): Promise<UserRow> {
  return db.insertInto("users").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
}

export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", userId).execute();
}
