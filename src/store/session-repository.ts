import type { Insertable } from "kysely";
import type { Db } from "./database.ts";
import type { SessionTable, UserRow } from "./schema.ts";

export async function insertSession(db: Db, row: Insertable<SessionTable>): Promise<void> {
  await db.insertInto("sessions").values(row).execute();
}

export interface LiveSession {
  readonly user: UserRow;
  readonly csrfHash: string;
  readonly lastSeenAt: Date;
}

/** The user of a session before both its absolute end and its idle deadline. */
export async function findLiveSession(
  db: Db,
  tokenHash: string,
  now: Date,
  idleSince: Date,
): Promise<LiveSession | undefined> {
  const row = await db
    .selectFrom("sessions as s")
    .innerJoin("users as u", "u.id", "s.user_id")
    .selectAll("u")
    .select(["s.csrf_hash", "s.last_seen_at"])
    .where("s.token_hash", "=", tokenHash)
    .where("s.expires_at", ">", now)
    .where("s.last_seen_at", ">", idleSince)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { csrf_hash, last_seen_at, ...user } = row;
  return { user, csrfHash: csrf_hash, lastSeenAt: last_seen_at };
}

export async function touchSession(db: Db, tokenHash: string, now: Date): Promise<void> {
  await db.updateTable("sessions").set({ last_seen_at: now }).where("token_hash", "=", tokenHash).execute();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom("sessions").where("token_hash", "=", tokenHash).execute();
}

/** Returns how many sessions were ended. */
export async function deleteSessionsOfUser(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom("sessions").where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteEndedSessionsOfUser(db: Db, userId: string, now: Date, idleSince: Date): Promise<void> {
  await db
    .deleteFrom("sessions")
    .where("user_id", "=", userId)
    .where((eb) => eb.or([eb("expires_at", "<=", now), eb("last_seen_at", "<=", idleSince)]))
    .execute();
}
