import type { Insertable } from "kysely";
import type { Db } from "./database.ts";
import type { UserRow, UserTable } from "./schema.ts";

export async function insertUser(db: Db, row: Insertable<UserTable>): Promise<UserRow> {
  return db.insertInto("users").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
}

export async function findUserById(db: Db, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
}

export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", userId).execute();
}

/** Marks the address verified, once: a later call keeps the first time. */
export async function markEmailVerified(db: Db, userId: string, now: Date): Promise<void> {
  await db
    .updateTable("users")
    .set({ email_verified_at: now })
    .where("id", "=", userId)
    .where("email_verified_at", "is", null)
    .execute();
}

export async function listUsersOfAccount(db: Db, accountId: string): Promise<UserRow[]> {
  return db.selectFrom("users").selectAll().where("account_id", "=", accountId).orderBy("created_at").execute();
}

export async function listOwnersOfAccount(db: Db, accountId: string): Promise<UserRow[]> {
  return db
    .selectFrom("users")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("role", "=", "owner")
    .where("email_verified_at", "is not", null)
    .execute();
}

/** Changes a person's role within the account; undefined when the id names no one there. */
export async function setUserRole(db: Db, accountId: string, userId: string, role: UserRow["role"]) {
  return db
    .updateTable("users")
    .set({ role })
    .where("id", "=", userId)
    .where("account_id", "=", accountId)
    .returningAll()
    .executeTakeFirst();
}

/** Removes a person from the account; their sessions and links go with them (on delete cascade). */
export async function deleteUserOfAccount(db: Db, accountId: string, userId: string) {
  return db
    .deleteFrom("users")
    .where("id", "=", userId)
    .where("account_id", "=", accountId)
    .returningAll()
    .executeTakeFirst();
}
