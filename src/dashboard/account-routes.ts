import type { FastifyInstance, FastifyReply } from "fastify";
import { getAccount } from "../accounts/get-account.ts";
import { setAccountRepeatWindow } from "../accounts/set-account-repeat-window.ts";
import { setAccountRetention } from "../accounts/set-account-retention.ts";
import type { AppContext } from "../context.ts";
import { listAccountAudit } from "../dashboard-auth/audit-log.ts";
import { changePassword, signOutEverywhere } from "../dashboard-auth/change-password.ts";
import { createInvite } from "../dashboard-auth/invites.ts";
import { retentionDaysFromText } from "../domain/retention.ts";
import type { UserRow } from "../store/schema.ts";
import { accountDepsOf, dashboardAuthDepsOf } from "../use-case-deps.ts";
import { auditAction } from "./audit-action.ts";
import { createFlashes } from "./flash.ts";
import { formErrors, renderMessage } from "./messages.ts";
import { endBrowserSession, signedIn, startBrowserSession } from "./session-guard.ts";

type Form = Record<string, string | undefined>;
const field = (body: unknown, name: string) => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

export function registerAccountRoutes(scope: FastifyInstance, app: AppContext): void {
  const auth = dashboardAuthDepsOf(app);
  const flashes = createFlashes(app.secrets, app.clock);
  const accountPage = async (reply: FastifyReply, user: UserRow, extra: Record<string, unknown> = {}, status = 200) =>
    reply.code(status).view("account.eta", {
      title: "Account",
      tab: "account",
      account: await getAccount(accountDepsOf(app), user.account_id),
      events: await listAccountAudit(app.database.db, user.account_id),
      errors: {},
      message: "",
      notice: "",
      invite: undefined,
      retentionInput: undefined,
      repeatWindowInput: undefined,
      ...extra,
    });

  scope.get("/account", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    // An invitation link is shown once, like a secret: it arrives from the form's redirect (flash.ts).
    const { notice, invite } = flashes.take(request, reply);
    return accountPage(reply, user, {
      notice: notice ?? "",
      invite: invite && { url: invite.url, expiresAt: new Date(invite.expiresAt) },
    });
  });

  scope.post("/account/password", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    try {
      const session = await changePassword(auth, user, {
        current: field(request.body, "current_password"),
        next: field(request.body, "new_password"),
        clientAddress: request.ip,
      });
      startBrowserSession(request, reply, session);
      flashes.leave(request, reply, { notice: "Password changed. Every other session is signed out." });
      return reply.redirect("/dashboard/account", 303);
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      return accountPage(reply, user, { errors, message }, status);
    }
  });

  scope.post("/account/sign-out-everywhere", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    await signOutEverywhere(auth, user, request.ip);
    endBrowserSession(request, reply);
    return reply.redirect("/dashboard/sign-in", 303);
  });

  scope.post("/account/retention", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    if (user.role !== "owner") {
      return renderMessage(reply, 403, "Only an owner can change this", "Ask an owner of the account.");
    }
    const text = field(request.body, "context_retention_days").trim();
    try {
      const account = await setAccountRetention(accountDepsOf(app), {
        accountId: user.account_id,
        // Anything but whole digits is refused by the same rule as the admin API's.
        contextRetentionDays: text === "" ? undefined : retentionDaysFromText(text),
      });
      await auditAction(app, request, "retention_changed", `${account.contextRetentionDays} days`);
      flashes.leave(request, reply, {
        notice: `Callers are now remembered for ${account.contextRetentionDays} days after their last call.`,
      });
      return reply.redirect("/dashboard/account", 303);
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      return accountPage(reply, user, { errors, message, retentionInput: text }, status);
    }
  });

  scope.post("/account/repeat-window", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    if (user.role !== "owner") {
      return renderMessage(reply, 403, "Only an owner can change this", "Ask an owner of the account.");
    }
    const text = field(request.body, "repeat_window_days").trim();
    try {
      const account = await setAccountRepeatWindow(accountDepsOf(app), {
        accountId: user.account_id,
        // Anything but whole digits is refused by the same rule as the admin API's.
        repeatWindowDays: text === "" ? undefined : /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN,
      });
      await auditAction(app, request, "repeat_window_changed", `${account.repeatWindowDays} days`);
      flashes.leave(request, reply, {
        notice: `A call within ${account.repeatWindowDays} days of the caller's previous one is now a repeat contact.`,
      });
      return reply.redirect("/dashboard/account", 303);
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      return accountPage(reply, user, { errors, message, repeatWindowInput: text }, status);
    }
  });

  scope.post("/account/invites", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    if (user.role !== "owner") {
      return renderMessage(reply, 403, "Only the owner can invite", "Ask the account's owner for an invitation.");
    }
    const invite = await createInvite(auth, {
      accountId: user.account_id,
      createdBy: user.email,
      clientAddress: request.ip,
    });
    const url = `${request.protocol}://${request.host}/dashboard/invite/${invite.token}`;
    flashes.leave(request, reply, { invite: { url, expiresAt: invite.expiresAt.toISOString() } });
    return reply.redirect("/dashboard/account", 303);
  });
}
