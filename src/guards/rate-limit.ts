import type { Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../domain/clock.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import { decide, inspect } from "../domain/rolling-window.ts";
import type { MonthlyAllowance } from "../domain/tiers.ts";
import { BASE_LIMIT_PER_MINUTE, graceLimit } from "../domain/tiers.ts";
import { completesCallKey, principalKey } from "../pipeline/context-values.ts";
import { withLimitHeaders } from "../pipeline/headers.ts";
import { isRateLimited } from "../pipeline/method-policy.ts";
import { rateLimitExceeded } from "../pipeline/refusals.ts";
import { creditsLeft } from "../store/billing/charge.ts";
import type { Db } from "../store/database.ts";
import type { UsageMeter } from "../usage/usage-meter.ts";

// Rate limiting: the guard that holds each key to its tier's rolling window,
// and the windows kept in this process (the limiter of a single instance, of
// failed authentications, and of an instance whose Redis does not answer).

export interface RateLimitGuardOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly rateLimiter: RateLimiter;
  readonly monthlyAllowance: MonthlyAllowance;
  readonly meter?: UsageMeter;
}

/**
 * The per-key rolling window of the key's tier. Above the base limit and up
 * to the grace value calls succeed with a warning in the log; past it, 429.
 */
export function rateLimitGuard(options: RateLimitGuardOptions): Interceptor {
  const { clock, log } = options;
  return (next) => async (req) => {
    const principal = req.contextValues.get(principalKey);
    if (principal === undefined || !isRateLimited(req.method)) return next(req);
    const base = BASE_LIMIT_PER_MINUTE[principal.tier];
    const nowMs = clock.now().getTime();
    const decision = await options.rateLimiter.hit(principal.keyId, graceLimit(base), nowMs).catch((error) => {
      // A limiter that fails must not stop the phones: let the call through. (A Redis that does not answer does not
      // get here: the instance then keeps the windows itself, src/guards/fallback-rate-limiter.ts.)
      log.error({ err: error }, "rate limiter unavailable; request allowed");
      return undefined;
    });
    if (decision === undefined) return next(req);
    const rateLimit = {
      limit: base,
      remaining: Math.max(0, base - decision.count),
      resetAtMs: decision.resetAtMs,
    };
    if (!decision.allowed && req.contextValues.get(completesCallKey)) {
      // Bounded by the starts let in; dropping it would lose what the call said.
      log.warn({ keyId: principal.keyId, count: decision.count, limit: base }, "call completed over the rate limit");
    } else if (!decision.allowed) {
      options.meter?.refused(principal.tenant, "rate");
      const left = await creditsLeft(options.db, principal.tenant.accountId, clock.now(), options.monthlyAllowance);
      throw rateLimitExceeded({
        message: "Rate limit exceeded",
        count: decision.count,
        limit: base,
        retryAtMs: decision.retryAtMs,
        nowMs,
        limits: { rateLimit, quotaRemaining: left },
      });
    }
    if (decision.count > base) {
      log.warn({ keyId: principal.keyId, count: decision.count, limit: base }, "rate limit grace in use");
    }
    return withLimitHeaders({ rateLimit }, () => next(req));
  };
}

/** Windows of this process only: right for a single instance. */
export function createMemoryRateLimiter(): RateLimiter {
  const windows = new Map<string, number[]>();
  // The windows' own time: the latest moment a caller's clock gave, never the system's.
  let latestMs = Number.NEGATIVE_INFINITY;
  // Drop windows that emptied, so keys seen once do not stay forever.
  const sweep = setInterval(() => {
    for (const [key, hits] of windows) if (decideEmpty(hits, latestMs)) windows.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    async hit(key, max, nowMs) {
      if (nowMs > latestMs) latestMs = nowMs;
      let hits = windows.get(key);
      if (hits === undefined) {
        hits = [];
        windows.set(key, hits);
      }
      return decide(hits, nowMs, max);
    },
    async peek(key, nowMs) {
      return inspect(windows.get(key) ?? [], nowMs);
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

function decideEmpty(hits: number[], nowMs: number): boolean {
  return hits.length === 0 || hits[hits.length - 1] <= nowMs - 60_000;
}
