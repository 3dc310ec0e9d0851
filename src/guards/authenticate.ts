import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { LRUCache } from "lru-cache";
import { bearerToken, hashSecret, modeOfApiKey } from "../domain/api-key.ts";
import { type Clock, systemClock } from "../domain/clock.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import { isTier } from "../domain/tiers.ts";
import { integrationKey, peerAddressKey, principalKey } from "../pipeline/context-values.ts";
import { accessOf } from "../pipeline/method-policy.ts";
import { rateLimitExceeded } from "../pipeline/refusals.ts";
import {
  type KeyVerifier,
  type Verification,
  WEBHOOK_BASIC_CHALLENGE,
  WEBHOOK_REFUSED_MESSAGE,
  type WebhookVerifier,
} from "../pipeline/verifiers.ts";
import { findKeyByHash } from "../store/api-key-repository.ts";
import type { Db } from "../store/database.ts";
import type { UsageMeter } from "../usage/usage-meter.ts";
import { isAdminAuthorization } from "./admin-token.ts";

// Who is calling: the interceptor that asks each method's credential, the
// API key verifier it asks (the webhook verifier is webhook-verifier.ts), and
// the short-lived cache of credential lookups both verifiers keep.

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

export const MISSING_KEY_MESSAGE = "Invalid or missing API key";
export const REVOKED_KEY_MESSAGE = "API key has been revoked";

/**
 * Turns an Authorization header into a principal. Lookups are cached for
 * less than a second; a revocation on this instance clears the cache at once.
 */
export function createKeyVerifier(
  db: Db,
  monotonicNow: () => number = () => performance.now(),
  clock: Clock = systemClock,
): KeyVerifier {
  const cache = createShortLivedCache<{ verification: Verification; keyEnds?: Date | null }>(monotonicNow);
  return {
    async verify(authorization) {
      const key = bearerToken(authorization);
      if (key === undefined || modeOfApiKey(key) === undefined) return { ok: false, message: MISSING_KEY_MESSAGE };
      // Looking up by hash compares hashes in the database index, never the secret itself.
      const hash = hashSecret(key);
      const entry = await cache.get(hash, async () => {
        const row = await findKeyByHash(db, hash);
        return { verification: toVerification(row), keyEnds: row?.expiresAt };
      });
      return expired(entry, clock.now());
    },
    forgetAll() {
      cache.clear();
    },
  };
}

/** A rolled key's old secret is refused like a revoked key once its grace has run out. */
function expired(entry: { verification: Verification; keyEnds?: Date | null }, now: Date): Verification {
  if (entry.verification.ok && entry.keyEnds && entry.keyEnds <= now)
    return { ok: false, message: REVOKED_KEY_MESSAGE };
  return entry.verification;
}

function toVerification(row: Awaited<ReturnType<typeof findKeyByHash>>): Verification {
  if (row === undefined) return { ok: false, message: MISSING_KEY_MESSAGE };
  if (row.revoked) return { ok: false, message: REVOKED_KEY_MESSAGE };
  return {
    ok: true,
    principal: {
      tenant: { accountId: row.accountId, mode: row.mode },
      keyId: row.keyId,
      billingAccountId: row.billingAccountId,
      tier: isTier(row.tier) ? row.tier : "free",
      retentionDays: row.retentionDays,
    },
  };
}

// Credentials looked up once per burst of requests: each lookup is
// remembered for less than a second on the monotonic clock (tests that move
// the business clock do not freeze it), which bounds how long another
// instance may still accept a credential revoked elsewhere.

export const CREDENTIAL_CACHE_TTL_MS = 500;
const MAX_ENTRIES = 10_000;

export interface ShortLivedCache<V> {
  /** The value remembered for `key`, or what `lookUp` finds, remembered from then. */
  get(key: string, lookUp: () => Promise<V>): Promise<V>;
  clear(): void;
}

/** lru-cache keeps no undefined value, and "no such credential" is worth remembering too. */
interface Found<V> {
  readonly value: V;
}

/**
 * lru-cache's fetch shares one lookup among a burst that finds no entry. A
 * lookup under way when clear() runs (a revocation) still answers those who
 * wait on it, but is not stored: clear() empties the slot the lookup would
 * have filled, and `ignoreFetchAbort` makes lru-cache hand back the value
 * rather than fail the waiters.
 */
export function createShortLivedCache<V>(monotonicNow: () => number = () => performance.now()): ShortLivedCache<V> {
  const cache = new LRUCache<string, Found<V>, () => Promise<V>>({
    max: MAX_ENTRIES,
    ttl: CREDENTIAL_CACHE_TTL_MS,
    // The clock is read on each look (no timer per read), and shifted by one: lru-cache reads a start of 0 as none.
    ttlResolution: 0,
    perf: { now: () => monotonicNow() + 1 },
    ignoreFetchAbort: true,
    async fetchMethod(_key, _stale, { options, context: lookUp }) {
      const startedAt = monotonicNow();
      const value = await lookUp();
      // Counted from when the read began: how stale an entry may be is bounded from there. lru-cache keeps an
      // entry while its age is at most its ttl; ours ends when the time is up, hence the one ms less.
      options.ttl = Math.max(1, Math.floor(startedAt + CREDENTIAL_CACHE_TTL_MS - monotonicNow()) - 1);
      return { value };
    },
  });
  return {
    async get(key, lookUp) {
      const found = await cache.fetch(key, { context: lookUp });
      return (found as Found<V>).value;
    },
    clear() {
      cache.clear();
    },
  };
}
