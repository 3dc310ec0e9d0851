import type { Db } from "./database.ts";
import type { UserRow } from "./schema.ts";

export async function insertSession(
  db: Db,
  row: { token_hash: string; user_id: string; created_at: Date; expires_at: Date },
): Promise<void> {
  await db.insertInto("sessions").values(row).execute();
}

/** The user of a session that has not expired. */
export async function findSessionUser(db: Db, tokenHash: string, now: Date): Promise<UserRow | undefined> {
  return db
    .selectFrom("sessions as s")
    .innerJoin("users as u", "u.id", "s.user_id")
    .selectAll("u")
    .where("s.token_hash", "=", tokenHash)
    .where("s.expires_at", ">", now)
    .executeTakeFirst();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom("sessions").where("token_hash", "=", tokenHash).execute();
}

/** Returns how many sessions were ended. */
export async function deleteSessionsOfUser(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom("sessions").where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteExpiredSessionsOfUser(db: Db, userId: string, now: Date): Promise<void> {
  await db.deleteFrom("sessions").where("user_id", "=", userId).where("expires_at", "<=", now).execute();
}
