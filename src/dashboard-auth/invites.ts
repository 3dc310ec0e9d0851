import { createHash, randomBytes } from "node:crypto";
import { findOpenInvite, insertInvite } from "../store/invite-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import type { DashboardAuthDeps } from "./dashboard-auth-deps.ts";

// One-time links: the operator's to sign up (when SIGNUP=invite) and an
// owner's to join their account. Only the token's hash is stored; claiming
// one is a single UPDATE, so a link works once even when used twice at once.

export interface InviteClaim {
  readonly accountId: string | null;
}

export const inviteHash = (token: string) => createHash("sha256").update(token).digest("hex");

export async function createInvite(
  deps: DashboardAuthDeps,
  input: { accountId: string | null; createdBy: string; clientAddress: string },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(24).toString("base64url");
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.dashboard.inviteTtlMs);
  const { db } = deps;
  await insertInvite(db, {
    token_hash: inviteHash(token),
    account_id: input.accountId,
    created_by: input.createdBy,
    created_at: now,
    expires_at: expiresAt,
  });
  if (input.accountId !== null) {
    await recordAuditEvent(db, now, {
      accountId: input.accountId,
      actor: input.createdBy,
      event: "member_invited",
      clientAddress: input.clientAddress,
    });
  }
  return { token, expiresAt };
}

/** An open invite, or undefined when used, expired or unknown. */
export async function findInvite(deps: DashboardAuthDeps, token: string): Promise<InviteClaim | undefined> {
  if (token.length > 100) return undefined;
  const row = await findOpenInvite(deps.db, inviteHash(token), deps.clock.now());
  return row && { accountId: row.account_id };
}
