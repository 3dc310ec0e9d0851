import type { FastifyInstance } from "fastify";
import { accountDepsOf } from "../accounts/account-deps.ts";
import { listOwnedKeys } from "../accounts/owned-keys.ts";
import type { AppContext } from "../context.ts";
import { findInvite } from "../dashboard-auth/invites.ts";
import { endSession, SESSION_COOKIE } from "../dashboard-auth/sessions.ts";
import { signIn } from "../dashboard-auth/sign-in.ts";
import { signUp } from "../dashboard-auth/sign-up.ts";
import type { RateLimiter } from "../guards/rate-limiter.ts";
import { formErrors, renderMessage } from "./messages.ts";
import { clearSessionCookie, setSessionCookie } from "./session-guard.ts";

type Form = Record<string, string | undefined>;
const field = (body: unknown, name: string) => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === "string" ? value : "";
};

export function registerAuthRoutes(scope: FastifyInstance, app: AppContext, attempts: RateLimiter): void {
  const ttl = app.config.dashboard.sessionTtlMs;

  scope.get("/sign-in", (request, reply) => {
    if (request.dashboardUser) return reply.redirect("/dashboard/keys", 303);
    return reply.view("sign-in.eta", { title: "Sign in", email: "", error: "" });
  });

  scope.post("/sign-in", async (request, reply) => {
    const email = field(request.body, "email");
    const result = await signIn(app, attempts, {
      email,
      password: field(request.body, "password"),
      clientAddress: request.ip,
    });
    if (result.ok) {
      setSessionCookie(reply, result.sessionToken, ttl);
      return reply.redirect("/dashboard/keys", 303);
    }
    if (result.throttled) {
      reply.header("retry-after", String(result.retryAfterSeconds));
      return reply.code(429).view("sign-in.eta", {
        title: "Sign in",
        email,
        error: `Too many sign-in attempts. Try again in ${result.retryAfterSeconds} seconds.`,
      });
    }
    return reply.code(401).view("sign-in.eta", { title: "Sign in", email, error: "Email or password is wrong." });
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
    const invite = await findInvite(app, request.params.token);
    if (invite === undefined) {
      return renderMessage(reply, 404, "This invitation link is used or has expired", "Ask for a new link.");
    }
    return reply.view("sign-up.eta", signUpPage(request.params.token, invite.accountId !== null));
  });

  scope.post("/sign-up", async (request, reply) => {
    const values = { email: field(request.body, "email"), account_name: field(request.body, "account_name") };
    const invite = field(request.body, "invite");
    try {
      const result = await signUp(app, {
        email: values.email,
        password: field(request.body, "password"),
        accountName: values.account_name,
        inviteToken: invite,
        clientAddress: request.ip,
      });
      setSessionCookie(reply, result.sessionToken, ttl);
      if (result.firstKey === undefined) return reply.redirect("/dashboard/keys", 303);
      // The first key's secret is on this page only: it is not stored anywhere it could be shown again.
      const keys = await listOwnedKeys(accountDepsOf(app), result.accountId);
      reply.locals = { ...reply.locals, user: result.user };
      return reply.view("keys.eta", {
        title: "API keys",
        tab: "keys",
        keys,
        welcome: true,
        created: { ...result.firstKey, name: keys[0]?.name ?? "", kind: "test" },
        errors: {},
        values: { name: "", kind: "test" },
      });
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      const joining = invite !== "" && (await findInvite(app, invite))?.accountId != null;
      return reply.code(status).view("sign-up.eta", { ...signUpPage(invite, joining), values, errors, message });
    }
  });

  scope.post("/sign-out", async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token !== undefined) await endSession(app.database.db, token);
    clearSessionCookie(reply);
    return reply.redirect("/dashboard/sign-in", 303);
  });
}
