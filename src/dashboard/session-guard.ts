import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { resolveSession, SESSION_COOKIE } from "../dashboard-auth/sessions.ts";
import type { UserRow } from "../store/schema.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in person, set by the dashboard's session hook. */
    dashboardUser?: UserRow;
  }
  interface FastifyReply {
    /** Values every template of the request sees (@fastify/view merges them in). */
    locals?: Record<string, unknown>;
  }
}

export const SIGN_IN_PATH = "/dashboard/sign-in";

/** Resolves the session cookie (if any) to its user on every dashboard request. */
export function loadUser(app: AppContext) {
  return async (request: FastifyRequest) => {
    request.dashboardUser = await resolveSession(app.database.db, request.cookies[SESSION_COOKIE], app.clock.now());
  };
}

/** The signed-in user, or a redirect to sign-in (undefined: the reply is already sent). */
export function signedIn(request: FastifyRequest, reply: FastifyReply): UserRow | undefined {
  if (request.dashboardUser !== undefined) return request.dashboardUser;
  void reply.redirect(SIGN_IN_PATH, 303);
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, token: string, ttlMs: number): void {
  void reply.setCookie(SESSION_COOKIE, token, {
    path: "/dashboard",
    httpOnly: true,
    sameSite: "lax",
    // Secure whenever the request came over TLS (as TRUST_PROXY lets the host see it).
    secure: "auto",
    maxAge: Math.floor(ttlMs / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  void reply.clearCookie(SESSION_COOKIE, { path: "/dashboard", httpOnly: true, sameSite: "lax", secure: "auto" });
}
