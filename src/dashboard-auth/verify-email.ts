import { createKey } from "../accounts/create-key.ts";
import { listKeys } from "../accounts/list-keys.ts";
import { DomainError } from "../domain/domain-error.ts";
import type { UserRow } from "../store/schema.ts";
import { findUserById, markEmailVerified } from "../store/user-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import type { DashboardAuthDeps } from "./dashboard-auth-deps.ts";
import { type OpenedSession, openSession } from "./sessions.ts";
import { claimToken, peekUserToken } from "./user-tokens.ts";

export const FIRST_KEY_NAME = "Default test key";

export interface Verified {
  readonly session: OpenedSession;
  readonly user: UserRow;
  /** The first test key of a new account, shown once; absent for a member or an account that has keys. */
  readonly firstKey?: { readonly keyId: string; readonly secret: string };
}

/** Whose address an open verification link confirms, without spending it. */
export async function peekVerification(deps: DashboardAuthDeps, token: string): Promise<string | undefined> {
  return peekUserToken(deps.db, token, "verify_email", deps.clock.now());
}

/**
 * The mailed link, confirmed: the address is verified (production keys may be
 * made from now on), the browser signed in, and a new account's first test key
 * made and shown once.
 */
export async function verifyEmail(deps: DashboardAuthDeps, token: string, clientAddress: string): Promise<Verified> {
  const { db } = deps;
  const now = deps.clock.now();
  const userId = await claimToken(db, token, "verify_email", now);
  const found = userId === undefined ? undefined : await findUserById(db, userId);
  if (found === undefined) throw new DomainError("not_found", "This link is used or has expired");
  await markEmailVerified(db, found.id, now);
  const user = { ...found, email_verified_at: found.email_verified_at ?? now };
  const audit = { accountId: user.account_id, actor: user.email, clientAddress };
  await recordAuditEvent(db, now, { ...audit, event: "email_verified" });
  let firstKey: Verified["firstKey"];
  if (user.role === "owner" && (await listKeys(deps, user.account_id)).length === 0) {
    const key = await createKey(deps, { accountId: user.account_id, kind: "test", name: FIRST_KEY_NAME });
    firstKey = { keyId: key.keyId, secret: key.apiKey };
    await recordAuditEvent(db, now, {
      ...audit,
      event: "key_created",
      detail: `${key.keyId} (${FIRST_KEY_NAME}, test)`,
    });
  }
  const { sessionTtlMs: ttlMs, sessionIdleMs: idleMs } = deps.dashboard;
  return { session: await openSession(db, user.id, now, { ttlMs, idleMs }), user, firstKey };
}
