import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { throttleDashboardForm } from "../dashboard-auth/form-throttle.ts";
import { requestPasswordReset, resetLinkIsOpen, resetPassword } from "../dashboard-auth/password-reset.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import type { Mailer } from "../mail/mailer.ts";
import { retryAfter } from "../pipeline/retry-after.ts";
import { dashboardAuthDepsOf } from "../use-case-deps.ts";
import { createFlashes } from "./flash.ts";
import { field, mailOrigin } from "./form-fields.ts";
import { formErrors, renderMessage } from "./messages.ts";

// Forgotten passwords: ask for a link by address, then choose a new password
// through it. The first form answers the same for every address.

type TokenParams = { Params: { token: string } };

export function registerResetRoutes(scope: FastifyInstance, app: AppContext, attempts: RateLimiter, mailer: Mailer) {
  const auth = dashboardAuthDepsOf(app);
  const flashes = createFlashes(app.secrets, app.clock);
  const forgotPage = { title: "Reset your password", email: "", sent: false, message: "" };

  scope.get("/forgot-password", (request, reply) => {
    const { sentTo } = flashes.take(request, reply);
    if (sentTo === undefined) return reply.view("forgot-password.eta", forgotPage);
    return reply.view("forgot-password.eta", { ...forgotPage, email: sentTo, sent: true });
  });

  scope.post("/forgot-password", async (request, reply) => {
    const email = field(request.body, "email");
    const throttle = await throttleDashboardForm(attempts, auth, "reset", request.ip);
    if (!throttle.allowed) {
      reply.headers(retryAfter(throttle.retryAfterSeconds));
      const message = `Too many requests. Try again in ${throttle.retryAfterSeconds} seconds.`;
      return reply.code(429).view("forgot-password.eta", { ...forgotPage, email, message });
    }
    await requestPasswordReset(auth, mailer, { email, origin: mailOrigin(app, request), clientAddress: request.ip });
    flashes.leave(request, reply, { sentTo: email });
    return reply.redirect("/dashboard/forgot-password", 303);
  });

  const resetPage = (token: string) => ({ title: "Choose a new password", token, errors: {}, message: "" });
  const linkGone = "This link is used or has expired";

  scope.get<TokenParams>("/reset-password/:token", async (request, reply) => {
    if (!(await resetLinkIsOpen(auth, request.params.token))) {
      return renderMessage(reply, 404, linkGone, "Ask for a new link on the sign-in page.");
    }
    return reply.view("reset-password.eta", resetPage(request.params.token));
  });

  scope.post<TokenParams>("/reset-password/:token", async (request, reply) => {
    const { token } = request.params;
    try {
      await resetPassword(auth, { token, password: field(request.body, "password"), clientAddress: request.ip });
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      if (status === 404) return renderMessage(reply, 404, linkGone, "Ask for a new link on the sign-in page.");
      return reply.code(status).view("reset-password.eta", { ...resetPage(token), errors, message });
    }
    // Every session has ended, this browser's too: the notice is for whoever opens sign-in here next.
    const notice = "Password changed. Every session was signed out: sign in with the new password.";
    flashes.leave(request, reply, { notice }, "");
    return reply.redirect("/dashboard/sign-in", 303);
  });
}
