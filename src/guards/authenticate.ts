import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Clock } from "../domain/clock.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import { integrationKey, peerAddressKey, principalKey } from "../pipeline/context-values.ts";
import { accessOf } from "../pipeline/method-policy.ts";
import { rateLimitExceeded } from "../pipeline/refusals.ts";
import type { KeyVerifier, WebhookVerifier } from "../pipeline/verifiers.ts";
import type { UsageMeter } from "../usage/usage-meter.ts";
import { isAdminAuthorization } from "./admin-token.ts";
import { WEBHOOK_BASIC_CHALLENGE, WEBHOOK_REFUSED_MESSAGE } from "./webhook-verifier.ts";

export interface AuthenticateOptions {
  readonly keys: KeyVerifier;
  /** Platform webhooks: the integration in the URL and its credential. */
  readonly webhooks: WebhookVerifier;
  readonly adminTokenHash: () => string;
  readonly clock: Clock;
  /** Counts failed authentications per client address. */
  readonly failures: RateLimiter;
  /** Failed authentications one address may make per rolling minute before it is slowed down. */
  readonly failuresPerMinute: number;
  readonly meter?: UsageMeter;
}

/**
 * Public methods pass; admin methods need the admin token; webhooks the
 * credential of the integration they name; every other method an API key.
 * A client that keeps presenting bad credentials gets 429 instead of 401
 * once it passes its failure allowance, so keys cannot be guessed at speed; valid keys from the same address are never counted.
 */
export function authenticate(options: AuthenticateOptions): Interceptor {
  const refuse = async (message: string, peer: string) => {
    const nowMs = options.clock.now().getTime();
    const decision = await options.failures.hit(`authfail:${peer}`, options.failuresPerMinute, nowMs);
    if (decision.allowed) return new ConnectError(message, Code.Unauthenticated);
    return rateLimitExceeded({
      message: "Too many failed authentication attempts",
      count: decision.count,
      limit: options.failuresPerMinute,
      retryAtMs: decision.retryAtMs,
      nowMs,
    });
  };
  return (next) => async (req) => {
    const access = accessOf(req.method);
    if (access === "public") return next(req);
    const authorization = req.header.get("authorization");
    const peer = req.contextValues.get(peerAddressKey);
    if (access === "admin") {
      if (!isAdminAuthorization(authorization, options.adminTokenHash())) {
        throw await refuse("Invalid or missing admin token", peer);
      }
      return next(req);
    }
    if (access === "integration") {
      const { webhookId, payload } = req.message as { webhookId?: unknown; payload?: unknown };
      const verified = await options.webhooks.verify(
        String(webhookId ?? ""),
        String(payload ?? ""),
        req.header,
        req.url,
      );
      if (!verified.ok) {
        const refusal = await refuse(WEBHOOK_REFUSED_MESSAGE, peer);
        // A platform given credentials in its URL (Twilio) sends them only once challenged for them.
        refusal.metadata.set("www-authenticate", WEBHOOK_BASIC_CHALLENGE);
        throw refusal;
      }
      req.contextValues.set(principalKey, verified.principal).set(integrationKey, verified.integration);
      return next(req);
    }
    const verification = await options.keys.verify(authorization);
    if (!verification.ok) throw await refuse(verification.message, peer);
    req.contextValues.set(principalKey, verification.principal);
    options.meter?.keyUsed(verification.principal.keyId);
    return next(req);
  };
}
