import type { FastifyReply, FastifyRequest } from "fastify";
import type { SecretBox } from "../secrets/secret-box.ts";

// Post/Redirect/Get: a form that changed something answers 303 to a page,
// and what that page should say once ("Password changed", or a secret that
// is shown only once) travels in this cookie. It is sealed with the
// service's secrets key (AES-256-GCM: the browser can neither read nor forge
// it), lives five minutes, names the person who posted (another session in
// the same browser does not see it) and is cleared by the page that reads it,
// so a reload shows the page without it and never posts the form again.

const COOKIE = "cc_flash";
const LIFETIME_MS = 5 * 60_000;

export interface Flash {
  readonly notice?: string;
  /** The sign-up's first key. */
  readonly welcome?: boolean;
  /** A key just made or rolled, with its secret. */
  readonly key?: { keyId: string; secret: string; name: string; kind: string };
  readonly rolled?: { oldEndsAt: string; immediate: boolean };
  /** An integration just made, with its webhook secret. */
  readonly integration?: Record<string, unknown> & { secret: string };
  /** An event endpoint just made or rolled, with its signing secret. */
  readonly endpoint?: { endpointId: string; url: string; kind: string; secret: string; rolledUntil?: string };
  readonly invite?: { url: string; expiresAt: string };
  /** Where a sign-up's or a reset's mail went. */
  readonly sentTo?: string;
}

interface Sealed {
  readonly user: string;
  readonly until: number;
  readonly flash: Flash;
}

const cookieOptions = (request: FastifyRequest) => ({
  path: "/dashboard",
  httpOnly: true,
  sameSite: "lax" as const,
  secure: request.protocol === "https",
});

/** Leaves `flash` for the next page this browser opens, for the person `userId` ("" before sign-in). */
export function setFlash(
  request: FastifyRequest,
  reply: FastifyReply,
  secrets: SecretBox,
  now: Date,
  userId: string,
  flash: Flash,
): void {
  const sealed: Sealed = { user: userId, until: now.getTime() + LIFETIME_MS, flash };
  void reply.setCookie(COOKIE, secrets.seal(JSON.stringify(sealed)), {
    ...cookieOptions(request),
    maxAge: LIFETIME_MS / 1000,
  });
}

/** The flash left for this person, once: the cookie is cleared whether it was theirs, stale or unreadable. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply, secrets: SecretBox, now: Date): Flash {
  const value = request.cookies[COOKIE];
  if (value === undefined) return {};
  void reply.clearCookie(COOKIE, cookieOptions(request));
  // open() passes an unsealed value through as it is: only a sealed one may speak.
  if (!value.startsWith("enc:")) return {};
  try {
    const sealed = JSON.parse(secrets.open(value)) as Sealed;
    if (sealed.until < now.getTime() || sealed.user !== (request.dashboardUser?.id ?? "")) return {};
    return sealed.flash;
  } catch {
    return {};
  }
}

export interface Flashes {
  /** Leaves `flash` for the next page, for `userId` (by default the signed-in person, "" before sign-in). */
  leave(request: FastifyRequest, reply: FastifyReply, flash: Flash, userId?: string): void;
  take(request: FastifyRequest, reply: FastifyReply): Flash;
}

export function createFlashes(secrets: SecretBox, clock: { now(): Date }): Flashes {
  return {
    leave: (request, reply, flash, userId = request.dashboardUser?.id ?? "") =>
      setFlash(request, reply, secrets, clock.now(), userId, flash),
    take: (request, reply) => takeFlash(request, reply, secrets, clock.now()),
  };
}
