import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { type OpenedSession, resolveSession, sha256 } from "../dashboard-auth/sessions.ts";
import type { UserRow } from "../store/schema.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in person, set by the dashboard's session hook. */
    dashboardUser?: UserRow;
    /** SHA-256 of the CSRF secret the signed-in session was issued with. */
    sessionCsrfHash?: string;
  }
  interface FastifyReply {
    /** Values every template of the request sees (@fastify/view merges them in). */
    locals?: Record<string, unknown>;
  }
}

export const SIGN_IN_PATH = "/dashboard/sign-in";
/** @fastify/csrf-protection's cookie, holding the CSRF secret (signed). */
export const CSRF_COOKIE = "_csrf";

// Over TLS the session cookie is `__Host-` prefixed: browsers then accept it
// only with Secure, Path=/ and no Domain, so neither a sibling subdomain nor a
// plain-HTTP page can plant or overwrite it. Without TLS (a local setup) the
// prefix cannot be used, and the cookie is scoped to /dashboard.
const TLS_COOKIE = "__Host-cc_session";
const PLAIN_COOKIE = "cc_session";

const overTls = (request: FastifyRequest) => request.protocol === "https";
const cookieName = (request: FastifyRequest) => (overTls(request) ? TLS_COOKIE : PLAIN_COOKIE);

export function sessionToken(request: FastifyRequest): string | undefined {
  return request.cookies[cookieName(request)];
}

/** Resolves the session cookie (if any) to its user on every dashboard request. */
export function loadUser(app: AppContext) {
  const { sessionTtlMs: ttlMs, sessionIdleMs: idleMs } = app.config.dashboard;
  return async (request: FastifyRequest) => {
    const session = await resolveSession(app.database.db, sessionToken(request), app.clock.now(), { ttlMs, idleMs });
    request.dashboardUser = session?.user;
    request.sessionCsrfHash = session?.csrfHash;
  };
}

/**
 * A signed-in form must carry a token of the CSRF secret its session was
 * issued with (the token itself is checked by @fastify/csrf-protection before
 * this): a secret planted in the browser before sign-in, or one of another
 * session, is refused. False: the form is refused.
 */
export function csrfMatchesSession(request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.sessionCsrfHash === undefined) return true;
  const secret = reply.unsignCookie(request.cookies[CSRF_COOKIE] ?? "");
  return secret.valid && secret.value !== null && sha256(secret.value) === request.sessionCsrfHash;
}

/** The signed-in user, or a redirect to sign-in (undefined: the reply is already sent). */
export function signedIn(request: FastifyRequest, reply: FastifyReply): UserRow | undefined {
  if (request.dashboardUser !== undefined) return request.dashboardUser;
  void reply.redirect(SIGN_IN_PATH, 303);
  return undefined;
}

/**
 * Starts a session in this browser: its cookie and a new CSRF secret (the
 * one in use before sign-in is replaced), and a form token of the new secret
 * for the page this request answers. Both cookies are session cookies (no
 * Max-Age): they go when the browser closes, and the server ends the session
 * at its idle or absolute deadline anyway.
 */
export function startBrowserSession(request: FastifyRequest, reply: FastifyReply, session: OpenedSession): void {
  const secure = overTls(request);
  void reply.setCookie(cookieName(request), session.token, {
    path: secure ? "/" : "/dashboard",
    httpOnly: true,
    sameSite: "lax",
    secure,
  });
  const signed = reply.signCookie(session.csrfSecret);
  void reply.setCookie(CSRF_COOKIE, signed, { path: "/dashboard", httpOnly: true, sameSite: "lax", secure });
  // The page this request renders gets a token of the new secret.
  request.cookies[CSRF_COOKIE] = signed;
  reply.locals = { ...reply.locals, csrf: reply.generateCsrf() };
}

export function endBrowserSession(request: FastifyRequest, reply: FastifyReply): void {
  const secure = overTls(request);
  void reply.clearCookie(cookieName(request), {
    path: secure ? "/" : "/dashboard",
    httpOnly: true,
    sameSite: "lax",
    secure,
  });
  // The session's CSRF secret ends with it; the next page issues a fresh one.
  void reply.clearCookie(CSRF_COOKIE, { path: "/dashboard", httpOnly: true, sameSite: "lax", secure });
}
