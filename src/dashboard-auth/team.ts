import { DomainError } from "../domain/domain-error.ts";
import { listOpenInvites, revokeInvite } from "../store/invite-repository.ts";
import type { UserRow } from "../store/schema.ts";
import { deleteUserOfAccount, listUsersOfAccount, setUserRole } from "../store/user-repository.ts";
import { recordAuditEvent } from "./audit-log.ts";
import type { DashboardAuthDeps } from "./dashboard-auth-deps.ts";

// The owner's view of the account's people: who they are, their roles, and the
// invitations still open. Every operation names the owner's account in its
// query, so another account's person or link is not found.

export interface Member {
  readonly userId: string;
  readonly email: string;
  readonly role: UserRow["role"];
  readonly verified: boolean;
  readonly joinedAt: Date;
}

export async function listMembers(deps: DashboardAuthDeps, accountId: string): Promise<Member[]> {
  return (await listUsersOfAccount(deps.db, accountId)).map((u) => ({
    userId: u.id,
    email: u.email,
    role: u.role,
    verified: u.email_verified_at !== null,
    joinedAt: u.created_at,
  }));
}

export async function listInvitations(deps: DashboardAuthDeps, accountId: string) {
  return (await listOpenInvites(deps.db, accountId, deps.clock.now())).map((i) => ({
    id: i.token_hash,
    createdBy: i.created_by,
    createdAt: i.created_at,
    expiresAt: i.expires_at,
  }));
}

const notYourself = () => new DomainError("failed_precondition", "You cannot change or remove yourself here");
const noSuchMember = (id: string) => new DomainError("not_found", `Member '${id}' not found`);

export async function changeMemberRole(
  deps: DashboardAuthDeps,
  owner: UserRow,
  input: { userId: string; role: string; clientAddress: string },
): Promise<void> {
  if (input.role !== "owner" && input.role !== "member") {
    throw new DomainError("invalid_argument", "Validation failed", [
      { path: ["role"], message: "Choose owner or member" },
    ]);
  }
  // An account always keeps an owner: the one acting cannot step down here.
  if (input.userId === owner.id) throw notYourself();
  const changed = await setUserRole(deps.db, owner.account_id, input.userId, input.role);
  if (changed === undefined) throw noSuchMember(input.userId);
  await recordAuditEvent(deps.db, deps.clock.now(), {
    accountId: owner.account_id,
    actor: owner.email,
    event: "member_role_changed",
    detail: `${changed.email} is now ${changed.role}`,
    clientAddress: input.clientAddress,
  });
}

/** Removes the person; their sessions end with their row (on every instance at once). */
export async function removeMember(
  deps: DashboardAuthDeps,
  owner: UserRow,
  input: { userId: string; clientAddress: string },
): Promise<void> {
  if (input.userId === owner.id) throw notYourself();
  const removed = await deleteUserOfAccount(deps.db, owner.account_id, input.userId);
  if (removed === undefined) throw noSuchMember(input.userId);
  await recordAuditEvent(deps.db, deps.clock.now(), {
    accountId: owner.account_id,
    actor: owner.email,
    event: "member_removed",
    detail: `${removed.email} (${removed.role})`,
    clientAddress: input.clientAddress,
  });
}

export async function revokeInvitation(
  deps: DashboardAuthDeps,
  owner: UserRow,
  input: { inviteId: string; clientAddress: string },
): Promise<void> {
  const now = deps.clock.now();
  const revoked = await revokeInvite(deps.db, owner.account_id, input.inviteId, now);
  if (revoked === undefined) throw new DomainError("not_found", "This invitation is used, expired or unknown");
  await recordAuditEvent(deps.db, now, {
    accountId: owner.account_id,
    actor: owner.email,
    event: "invite_revoked",
    detail: `invitation ${input.inviteId.slice(0, 8)}`,
    clientAddress: input.clientAddress,
  });
}
