import { UNUSABLE_HASH, verifyPassword } from "../domain/password.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import { findUserByEmail } from "../store/user-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import { normaliseEmail } from "./credentials.ts";
import type { DashboardAuthDeps } from "./dashboard-auth-deps.ts";
import { type OpenedSession, openSession } from "./sessions.ts";

/** One client address may make this many times the attempts one email may from it. */
const ADDRESS_FACTOR = 5;

export type SignInResult =
  | { readonly ok: true; readonly session: OpenedSession }
  | { readonly ok: false; readonly throttled: false }
  | { readonly ok: false; readonly throttled: true; readonly retryAfterSeconds: number };

/**
 * Email and password to a session. Attempts are counted per client address
 * and per (email, address) pair before the password is checked, so guessing
 * is slow from one place and against one person from it; a pair, not the email
 * alone, so someone else's failures cannot lock a person out from their own
 * address. An unknown email costs the same hash as a wrong password, so timing
 * does not tell which emails exist.
 */
export async function signIn(
  deps: DashboardAuthDeps,
  attempts: RateLimiter,
  input: { email: string; password: string; clientAddress: string },
): Promise<SignInResult> {
  const email = normaliseEmail(input.email);
  const nowMs = deps.clock.now().getTime();
  const max = deps.dashboard.signinAttemptsPerMinute;
  // Many people may share one address (an office, a carrier's NAT): it gets more room than one email.
  const byAddress = await attempts.hit(`address:${input.clientAddress}`, max * ADDRESS_FACTOR, nowMs);
  const byPair = await attempts.hit(`pair:${email}\n${input.clientAddress}`, max, nowMs);
  if (!byAddress.allowed || !byPair.allowed) {
    const retryAt = Math.max(byAddress.allowed ? 0 : byAddress.retryAtMs, byPair.allowed ? 0 : byPair.retryAtMs);
    return { ok: false, throttled: true, retryAfterSeconds: Math.max(1, Math.ceil((retryAt - nowMs) / 1000)) };
  }
  const { db } = deps;
  const user = email === "" ? undefined : await findUserByEmail(db, email);
  const matches = await verifyPassword(input.password, user?.password_hash ?? UNUSABLE_HASH);
  const now = deps.clock.now();
  if (user === undefined || !matches) {
    if (user !== undefined) {
      await recordAuditEvent(db, now, {
        accountId: user.account_id,
        actor: email,
        event: "sign_in_failed",
        clientAddress: input.clientAddress,
      });
    }
    return { ok: false, throttled: false };
  }
  await recordAuditEvent(db, now, {
    accountId: user.account_id,
    actor: email,
    event: "sign_in",
    clientAddress: input.clientAddress,
  });
  const { sessionTtlMs: ttlMs, sessionIdleMs: idleMs } = deps.dashboard;
  return { ok: true, session: await openSession(db, user.id, now, { ttlMs, idleMs }) };
}
