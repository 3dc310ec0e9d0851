import { DomainError, type FieldIssue } from "../domain/domain-error.ts";
import { hashPassword, verifyPassword } from "../domain/password.ts";
import type { UserRow } from "../store/schema.ts";
import { setPasswordHash } from "../store/user-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import { checkNewPassword, throwIfAny } from "./credentials.ts";
import type { DashboardAuthDeps } from "./dashboard-auth-deps.ts";
import { endAllSessions, type OpenedSession, openSession } from "./sessions.ts";

/**
 * A new password ends every session of the user (a thief's included) and
 * opens a fresh one for the browser that changed it.
 */
export async function changePassword(
  deps: DashboardAuthDeps,
  user: UserRow,
  input: { current: string; next: string; clientAddress: string },
): Promise<OpenedSession> {
  const issues: FieldIssue[] = [];
  checkNewPassword(issues, input.next, "new_password", [user.email]);
  throwIfAny(issues);
  if (!(await verifyPassword(input.current, user.password_hash))) {
    throw new DomainError("invalid_argument", "Validation failed", [
      { path: ["current_password"], message: "Current password is wrong" },
    ]);
  }
  const { db } = deps;
  await setPasswordHash(db, user.id, await hashPassword(input.next));
  await endAllSessions(db, user.id);
  const now = deps.clock.now();
  await recordAuditEvent(db, now, {
    accountId: user.account_id,
    actor: user.email,
    event: "password_changed",
    clientAddress: input.clientAddress,
  });
  const { sessionTtlMs: ttlMs, sessionIdleMs: idleMs } = deps.dashboard;
  return openSession(db, user.id, now, { ttlMs, idleMs });
}

export async function signOutEverywhere(deps: DashboardAuthDeps, user: UserRow, clientAddress: string): Promise<void> {
  const { db } = deps;
  await endAllSessions(db, user.id);
  await recordAuditEvent(db, deps.clock.now(), {
    accountId: user.account_id,
    actor: user.email,
    event: "sign_out_everywhere",
    clientAddress,
  });
}
