import type { FastifyInstance, FastifyReply } from "fastify";
import { listOwnedKeys } from "../accounts/owned-keys.ts";
import type { AppContext } from "../context.ts";
import { throttleDashboardForm } from "../dashboard-auth/form-throttle.ts";
import { findInvite } from "../dashboard-auth/invites.ts";
import { endSession } from "../dashboard-auth/sessions.ts";
import { signIn } from "../dashboard-auth/sign-in.ts";
import { signUp } from "../dashboard-auth/sign-up.ts";
import { peekVerification, verifyEmail } from "../dashboard-auth/verify-email.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import type { Mailer } from "../mail/mailer.ts";
import { retryAfter } from "../pipeline/retry-after.ts";
import { accountDepsOf, dashboardAuthDepsOf } from "../use-case-deps.ts";
import { createFlashes } from "./flash.ts";
import { field, mailOrigin } from "./form-fields.ts";
import { formErrors, orMessage, renderMessage } from "./messages.ts";
import { endBrowserSession, sessionToken, startBrowserSession } from "./session-guard.ts";

export function registerAuthRoutes(scope: FastifyInstance, app: AppContext, attempts: RateLimiter, mailer: Mailer) {
  const auth = dashboardAuthDepsOf(app);
  const flashes = createFlashes(app.secrets, app.clock);
  const tooMany = (reply: FastifyReply, seconds: number, view: string, values: Record<string, unknown>) => {
    reply.headers(retryAfter(seconds));
    return reply.code(429).view(view, values);
  };

  scope.get("/sign-in", (request, reply) => {
    if (request.dashboardUser) return reply.redirect("/dashboard/keys", 303);
    const notice = flashes.take(request, reply).notice ?? "";
    return reply.view("sign-in.eta", { title: "Sign in", email: "", error: "", notice });
  });

  scope.post("/sign-in", async (request, reply) => {
    const email = field(request.body, "email");
    const result = await signIn(auth, attempts, {
      email,
      password: field(request.body, "password"),
      clientAddress: request.ip,
    });
    if (result.ok) {
      startBrowserSession(request, reply, result.session);
      return reply.redirect("/dashboard/keys", 303);
    }
    const page = { title: "Sign in", email, notice: "" };
    if (result.throttled) {
      const error = `Too many sign-in attempts. Try again in ${result.retryAfterSeconds} seconds.`;
      return tooMany(reply, result.retryAfterSeconds, "sign-in.eta", { ...page, error });
    }
    return reply.code(401).view("sign-in.eta", { ...page, error: "Email or password is wrong." });
  });

  const signUpPage = (invite: string, joining: boolean) => ({
    title: "Sign up",
    invite,
    joining,
    values: { email: "", account_name: "" },
    errors: {},
    message: "",
  });

  scope.get("/sign-up", (request, reply) => {
    if (request.dashboardUser) return reply.redirect("/dashboard/keys", 303);
    if (app.config.dashboard.signup === "invite") {
      return renderMessage(
        reply,
        403,
        "Sign-up is by invitation",
        "Ask the operator of this service for a sign-up link.",
      );
    }
    return reply.view("sign-up.eta", signUpPage("", false));
  });

  scope.get<{ Params: { token: string } }>("/invite/:token", async (request, reply) => {
    const invite = await findInvite(auth, request.params.token);
    if (invite === undefined) {
      return renderMessage(reply, 404, "This invitation link is used or has expired", "Ask for a new link.");
    }
    return reply.view("sign-up.eta", signUpPage(request.params.token, invite.accountId !== null));
  });

  scope.post("/sign-up", async (request, reply) => {
    const values = { email: field(request.body, "email"), account_name: field(request.body, "account_name") };
    const invite = field(request.body, "invite");
    const joining = async () => invite !== "" && (await findInvite(auth, invite))?.accountId != null;
    const throttle = await throttleDashboardForm(attempts, auth, "sign-up", request.ip);
    if (!throttle.allowed) {
      const message = `Too many sign-ups. Try again in ${throttle.retryAfterSeconds} seconds.`;
      const page = { ...signUpPage(invite, await joining()), values, message };
      return tooMany(reply, throttle.retryAfterSeconds, "sign-up.eta", page);
    }
    try {
      await signUp(auth, mailer, {
        email: values.email,
        password: field(request.body, "password"),
        accountName: values.account_name,
        inviteToken: invite,
        clientAddress: request.ip,
        origin: mailOrigin(app, request),
      });
      // The same page whether the address was new or taken: the mail says which.
      flashes.leave(request, reply, { sentTo: values.email.trim().toLowerCase() });
      return reply.redirect("/dashboard/check-email", 303);
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      return reply
        .code(status)
        .view("sign-up.eta", { ...signUpPage(invite, await joining()), values, errors, message });
    }
  });

  scope.get("/check-email", (request, reply) => {
    const { sentTo } = flashes.take(request, reply);
    // Reloaded later, the page has no address to name: the form is where to start again.
    if (sentTo === undefined) return reply.redirect("/dashboard/sign-up", 303);
    return reply.view("check-email.eta", { title: "Check your email", email: sentTo });
  });

  // Opening the link only asks: mail scanners that fetch links must not spend it.
  scope.get<{ Params: { token: string } }>("/verify/:token", async (request, reply) => {
    if ((await peekVerification(auth, request.params.token)) === undefined) {
      return renderMessage(reply, 404, "This link is used or has expired", "Sign in, or sign up again for a new link.");
    }
    return reply.view("verify.eta", { title: "Confirm your email", token: request.params.token });
  });

  scope.post<{ Params: { token: string } }>("/verify/:token", async (request, reply) => {
    const verified = await orMessage(reply, () => verifyEmail(auth, request.params.token, request.ip));
    if (!verified) return;
    startBrowserSession(request, reply, verified.session);
    if (verified.firstKey !== undefined) {
      // The first key's secret goes to the keys page once: it is not stored anywhere it could be shown again.
      const keys = await listOwnedKeys(accountDepsOf(app), verified.user.account_id);
      const key = { ...verified.firstKey, name: keys[0]?.name ?? "", kind: "test" };
      flashes.leave(request, reply, { welcome: true, key }, verified.user.id);
    }
    return reply.redirect("/dashboard/keys", 303);
  });

  scope.post("/sign-out", async (request, reply) => {
    const token = sessionToken(request);
    if (token !== undefined) await endSession(app.database.db, token);
    endBrowserSession(request, reply);
    return reply.redirect("/dashboard/sign-in", 303);
  });
}
