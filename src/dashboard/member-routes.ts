import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { mayPerform } from "../dashboard-auth/roles.ts";
import {
  changeMemberRole,
  listInvitations,
  listMembers,
  removeMember,
  revokeInvitation,
} from "../dashboard-auth/team.ts";
import type { UserRow } from "../store/schema.ts";
import { dashboardAuthDepsOf } from "../use-case-deps.ts";
import { createFlashes } from "./flash.ts";
import { field } from "./form-fields.ts";
import { orMessage, renderMessage } from "./messages.ts";
import { signedIn } from "./session-guard.ts";

// The Members page, the owner's only: the account's people and open
// invitations; change a role, remove a person (their sessions end at once),
// revoke a link.

type IdParams = { Params: { id: string } };

export function registerMemberRoutes(scope: FastifyInstance, app: AppContext): void {
  const auth = dashboardAuthDepsOf(app);
  const flashes = createFlashes(app.secrets, app.clock);
  const done = (request: FastifyRequest, reply: FastifyReply, notice: string) => {
    flashes.leave(request, reply, { notice });
    return reply.redirect("/dashboard/members", 303);
  };
  /** The signed-in owner, or a refusal already sent. */
  const owner = async (request: FastifyRequest, reply: FastifyReply): Promise<UserRow | undefined> => {
    const user = signedIn(request, reply);
    if (user === undefined) return undefined;
    if (mayPerform(user, "manage_members")) return user;
    await renderMessage(reply, 403, "Only an owner can manage members", "Ask the account's owner.");
    return undefined;
  };

  const membersPage = async (reply: FastifyReply, user: UserRow, notice = "") =>
    reply.view("members.eta", {
      title: "Members",
      tab: "members",
      members: await listMembers(auth, user.account_id),
      invitations: await listInvitations(auth, user.account_id),
      notice,
    });

  scope.get("/members", async (request, reply) => {
    const user = await owner(request, reply);
    if (user) return membersPage(reply, user, flashes.take(request, reply).notice);
    return reply;
  });

  scope.post<IdParams>("/members/:id/role", async (request, reply) => {
    const user = await owner(request, reply);
    if (!user) return reply;
    const input = { userId: request.params.id, role: field(request.body, "role"), clientAddress: request.ip };
    if ((await orMessage(reply, () => changeMemberRole(auth, user, input).then(() => true))) === undefined) return;
    return done(request, reply, "Role changed.");
  });

  scope.post<IdParams>("/members/:id/remove", async (request, reply) => {
    const user = await owner(request, reply);
    if (!user) return reply;
    const input = { userId: request.params.id, clientAddress: request.ip };
    if ((await orMessage(reply, () => removeMember(auth, user, input).then(() => true))) === undefined) return;
    return done(request, reply, "Member removed. Their sessions have ended.");
  });

  scope.post<IdParams>("/invitations/:id/revoke", async (request, reply) => {
    const user = await owner(request, reply);
    if (!user) return reply;
    const input = { inviteId: request.params.id, clientAddress: request.ip };
    if ((await orMessage(reply, () => revokeInvitation(auth, user, input).then(() => true))) === undefined) return;
    return done(request, reply, "Invitation revoked: the link no longer works.");
  });
}
