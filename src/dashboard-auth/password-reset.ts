import { DomainError, type FieldIssue } from "../domain/domain-error.ts";
import { hashPassword } from "../domain/password.ts";
import type { Mailer } from "../mail/mailer.ts";
import { findUserByEmail, findUserById, markEmailVerified, setPasswordHash } from "../store/user-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import { checkNewPassword, normaliseEmail, throwIfAny } from "./credentials.ts";
import type { DashboardAuthDeps } from "./dashboard-auth-deps.ts";
import { resetPasswordMail } from "./mail-texts.ts";
import { endAllSessions } from "./sessions.ts";
import { claimToken, issueUserToken, peekUserToken } from "./user-tokens.ts";

// Forgotten passwords: a single-use link that expires (RESET_TTL_MINUTES),
// mailed to the address, so only who reads its mail can use it. The request
// answers the same for an address with or without an account.

export async function requestPasswordReset(
  deps: DashboardAuthDeps,
  mailer: Mailer,
  input: { email: string; origin: string; clientAddress: string },
): Promise<void> {
  const { db } = deps;
  const user = await findUserByEmail(db, normaliseEmail(input.email));
  if (user === undefined) return;
  const now = deps.clock.now();
  const ttlMs = deps.dashboard.resetTtlMs;
  const token = await issueUserToken(db, { userId: user.id, purpose: "reset_password", now, ttlMs });
  await recordAuditEvent(db, now, {
    accountId: user.account_id,
    actor: user.email,
    event: "password_reset_requested",
    clientAddress: input.clientAddress,
  });
  mailer.send(resetPasswordMail(user.email, `${input.origin}/dashboard/reset-password/${token}`, ttlMs / 60_000));
}

/** Whether a reset link is open, without spending it. */
export async function resetLinkIsOpen(deps: DashboardAuthDeps, token: string): Promise<boolean> {
  return (await peekUserToken(deps.db, token, "reset_password", deps.clock.now())) !== undefined;
}

const LINK_GONE = () => new DomainError("not_found", "This link is used or has expired");

/**
 * A new password through the link: checked before the link is spent (a weak
 * one leaves it usable), then every session of the person ends. Reading the
 * mail proves the address, so it counts as verified too.
 */
export async function resetPassword(
  deps: DashboardAuthDeps,
  input: { token: string; password: string; clientAddress: string },
): Promise<void> {
  const { db } = deps;
  const now = deps.clock.now();
  const userId = await peekUserToken(db, input.token, "reset_password", now);
  const user = userId === undefined ? undefined : await findUserById(db, userId);
  if (user === undefined) throw LINK_GONE();
  const issues: FieldIssue[] = [];
  checkNewPassword(issues, input.password, "password", [user.email]);
  throwIfAny(issues);
  const passwordHash = await hashPassword(input.password);
  if ((await claimToken(db, input.token, "reset_password", deps.clock.now())) !== user.id) throw LINK_GONE();
  await setPasswordHash(db, user.id, passwordHash);
  await markEmailVerified(db, user.id, now);
  await endAllSessions(db, user.id);
  await recordAuditEvent(db, now, {
    accountId: user.account_id,
    actor: user.email,
    event: "password_reset",
    clientAddress: input.clientAddress,
  });
}
