import fastifyCookie from "@fastify/cookie";
import fastifyCsrf from "@fastify/csrf-protection";
import fastifyFormbody from "@fastify/formbody";
import fastifyView from "@fastify/view";
import { Eta } from "eta";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { createLazyCookieSigner } from "../dashboard-auth/cookie-signer.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import { createMailer } from "../mail/mailer.ts";
import { useSecurityHeaders } from "../pipeline/security-headers.ts";
import { logUnexpected } from "../pipeline/unexpected-errors.ts";
import { registerAccountRoutes } from "./account-routes.ts";
import { registerAuthRoutes } from "./auth-routes.ts";
import { registerCustomerRoutes } from "./customer-routes.ts";
import { registerEventDeliveryRoutes } from "./event-delivery-routes.ts";
import { registerEventEndpointRoutes } from "./event-endpoint-routes.ts";
import { formatters } from "./format.ts";
import { registerInsightsRoutes } from "./insights-routes.ts";
import { registerIntegrationRoutes } from "./integration-routes.ts";
import { GRACE_LABELS, registerKeyRoutes } from "./key-routes.ts";
import { registerMemberRoutes } from "./member-routes.ts";
import { renderMessage } from "./messages.ts";
import { registerRequestRoutes } from "./request-routes.ts";
import { registerResetRoutes } from "./reset-routes.ts";
import { csrfMatchesSession, loadUser } from "./session-guard.ts";
import { registerUsageRoutes } from "./usage-routes.ts";

// The self-service dashboard under /dashboard: server-rendered pages and
// plain HTML forms (every flow works with JavaScript off), a session cookie,
// and a CSRF token in every form that changes anything.

const VIEWS = new URL("./views/", import.meta.url).pathname;

export interface DashboardOptions {
  readonly app: AppContext;
  /**
   * The sign-in and reset forms' attempts, per instance like the API's failed-auth counter: slowing guesses
   * needs no coordination. The plugin closes it.
   */
  readonly attempts: RateLimiter;
}

export async function dashboardPlugin(scope: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { app } = options;
  const cookies = createLazyCookieSigner(app.database.db, app.secrets);
  // Before anything reads a cookie: the signing secret lives in the database.
  scope.addHook("onRequest", async () => cookies.load());
  await scope.register(fastifyCookie, { secret: cookies.signer });
  // Forms only: a JSON or text body is refused (415) before it is read, not parsed and then refused for CSRF.
  scope.removeAllContentTypeParsers();
  await scope.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  await scope.register(fastifyCsrf, {
    sessionPlugin: "@fastify/cookie",
    cookieOpts: { path: "/dashboard", httpOnly: true, sameSite: "lax", secure: "auto", signed: true },
  });
  await scope.register(fastifyView, {
    engine: { eta: new Eta() },
    templates: VIEWS,
    layout: "layout.eta",
    production: true,
    defaultContext: { ...formatters, graces: GRACE_LABELS, signup: app.config.dashboard.signup },
  });

  // Invitation links carry their token in the path: helmet's no-referrer never sends it on.
  await useSecurityHeaders(scope);
  scope.addHook("onRequest", async (_request, reply) => {
    reply.header("cache-control", "no-store");
  });
  // The token is read from the parsed form, so it is checked after body parsing; nothing runs before it.
  scope.addHook("preHandler", (request, reply, done) => {
    if (request.method === "POST") scope.csrfProtection(request, reply, done);
    else done();
  });
  scope.addHook("preHandler", loadUser(app));
  scope.addHook("preHandler", async (request, reply) => {
    if (request.method === "POST" && !csrfMatchesSession(request, reply)) {
      reply.locals = { user: undefined, csrf: "", title: "", tab: "" };
      await renderMessage(reply, 403, "This form has expired", "Go back, reload the page and send the form again.");
      return reply;
    }
  });
  scope.addHook("preHandler", async (request, reply) => {
    reply.locals = { user: request.dashboardUser, csrf: reply.generateCsrf(), title: "", tab: "" };
  });

  scope.setErrorHandler((error: { statusCode?: number; code?: string; message: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    logUnexpected(request.log, error, { route: request.routeOptions.url });
    if (status === 403 && error.code?.startsWith("FST_CSRF")) {
      return renderMessage(reply, 403, "This form has expired", "Go back, reload the page and send the form again.");
    }
    if (status === 413) return renderMessage(reply, 413, "Too much data", "The form sent more than the page accepts.");
    if (status === 415) return renderMessage(reply, 415, "Not a form", "The dashboard accepts only its own forms.");
    if (status < 500)
      return renderMessage(reply, status, "This request could not be handled", "Go back and try again.");
    return renderMessage(reply, 500, "Something went wrong", "The dashboard could not finish this request.");
  });
  scope.setNotFoundHandler((_request, reply) => renderMessage(reply, 404, "Page not found", "There is nothing here."));

  scope.get("/", (request, reply) =>
    reply.redirect(request.dashboardUser ? "/dashboard/keys" : "/dashboard/sign-in", 303),
  );

  const { attempts } = options;
  const mailer = createMailer({ ...app.config.mail, log: app.log });
  scope.addHook("onClose", async () => {
    await attempts.close();
    await mailer.close();
  });
  registerAuthRoutes(scope, app, attempts, mailer);
  registerResetRoutes(scope, app, attempts, mailer);
  registerKeyRoutes(scope, app, mailer);
  registerUsageRoutes(scope, app);
  registerInsightsRoutes(scope, app);
  registerRequestRoutes(scope, app);
  registerCustomerRoutes(scope, app);
  registerIntegrationRoutes(scope, app);
  registerEventEndpointRoutes(scope, app);
  registerEventDeliveryRoutes(scope, app);
  registerAccountRoutes(scope, app);
  registerMemberRoutes(scope, app);
}
