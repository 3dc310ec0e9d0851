import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../store/database.ts";
import type { UserRow } from "../store/schema.ts";
import {
  deleteExpiredSessionsOfUser,
  deleteSession,
  deleteSessionsOfUser,
  findSessionUser,
  insertSession,
} from "../store/session-repository.ts";

// Server-side sessions: the cookie holds 256 random bits, the table only
// their SHA-256, so ending a session (or all of a user's) takes effect at
// once on every instance, and a copy of the table opens no session.

export const SESSION_COOKIE = "cc_session";

function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export async function openSession(db: Db, userId: string, now: Date, ttlMs: number): Promise<string> {
  // A user's expired sessions go when they sign in again, so the table keeps few stale rows.
  await deleteExpiredSessionsOfUser(db, userId, now);
  const token = randomBytes(32).toString("base64url");
  await insertSession(db, {
    token_hash: tokenHash(token),
    user_id: userId,
    created_at: now,
    expires_at: new Date(now.getTime() + ttlMs),
  });
  return token;
}

/** The signed-in user, or undefined for a missing, unknown, ended or expired session. */
export async function resolveSession(db: Db, token: string | undefined, now: Date): Promise<UserRow | undefined> {
  if (token === undefined || token.length < 20 || token.length > 100) return undefined;
  return findSessionUser(db, tokenHash(token), now);
}

export async function endSession(db: Db, token: string): Promise<void> {
  await deleteSession(db, tokenHash(token));
}

export async function endAllSessions(db: Db, userId: string): Promise<number> {
  return deleteSessionsOfUser(db, userId);
}
