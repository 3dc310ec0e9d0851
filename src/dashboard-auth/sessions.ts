import { createHash, randomBytes } from "node:crypto";
import type { Db } from "../store/database.ts";
import {
  deleteEndedSessionsOfUser,
  deleteSession,
  deleteSessionsOfUser,
  findLiveSession,
  insertSession,
  type LiveSession,
  touchSession,
} from "../store/session-repository.ts";

// Server-side sessions: the cookie holds 256 random bits, the table only
// their SHA-256, so ending a session (or all of a user's) takes effect at
// once on every instance, and a copy of the table opens no session. A session
// ends at the first of its absolute lifetime and its idle timeout; each one
// comes with a CSRF secret of its own, issued with it, whose hash it keeps.

export interface SessionLimits {
  readonly ttlMs: number;
  readonly idleMs: number;
}

export interface OpenedSession {
  readonly token: string;
  /** The CSRF secret for the browser's cookie; forms of this session verify against it only. */
  readonly csrfSecret: string;
}

/** The idle deadline is moved at most this often, so a busy page does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

export async function openSession(db: Db, userId: string, now: Date, limits: SessionLimits): Promise<OpenedSession> {
  // A user's ended sessions go when they sign in again, so the table keeps few stale rows.
  await deleteEndedSessionsOfUser(db, userId, now, new Date(now.getTime() - limits.idleMs));
  const token = randomBytes(32).toString("base64url");
  const csrfSecret = randomBytes(18).toString("base64url");
  await insertSession(db, {
    token_hash: sha256(token),
    user_id: userId,
    created_at: now,
    expires_at: new Date(now.getTime() + limits.ttlMs),
    last_seen_at: now,
    csrf_hash: sha256(csrfSecret),
  });
  return { token, csrfSecret };
}

/** The signed-in session, or undefined for a missing, unknown, ended, expired or idle one. */
export async function resolveSession(
  db: Db,
  token: string | undefined,
  now: Date,
  limits: SessionLimits,
): Promise<LiveSession | undefined> {
  if (token === undefined || token.length < 20 || token.length > 100) return undefined;
  const hash = sha256(token);
  const session = await findLiveSession(db, hash, now, new Date(now.getTime() - limits.idleMs));
  if (session !== undefined && now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await touchSession(db, hash, now);
  }
  return session;
}

export async function endSession(db: Db, token: string): Promise<void> {
  await deleteSession(db, sha256(token));
}

export async function endAllSessions(db: Db, userId: string): Promise<number> {
  return deleteSessionsOfUser(db, userId);
}
