import { DomainError } from "../domain/domain-error.ts";
import type { Principal } from "../domain/principal.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import type { MonthlyAllowance } from "../domain/tiers.ts";
import { BASE_LIMIT_PER_MINUTE } from "../domain/tiers.ts";
import { creditsLeft } from "../store/billing/charge.ts";
import type { Db } from "../store/database.ts";

export interface Usage {
  readonly tier: string;
  readonly rateLimit: { readonly limit: number; readonly remaining: number; readonly resetAt: Date };
  readonly quota: { readonly remaining: number; readonly renewsAt: Date };
  readonly key: { readonly id: string; readonly kind: string };
}

export interface UsageSources {
  readonly db: Db;
  readonly rateLimiter: RateLimiter;
  readonly monthlyAllowance: MonthlyAllowance;
}

/**
 * What the calling key has left: its rolling window (looked at, not counted)
 * and its account's monthly quota, which renews on the first of the next UTC month.
 */
export async function getUsage(sources: UsageSources, principal: Principal, now: Date): Promise<Usage> {
  const limit = BASE_LIMIT_PER_MINUTE[principal.tier];
  const [window, credits] = await Promise.all([
    sources.rateLimiter.peek(principal.keyId, now.getTime()).catch(() => {
      throw new DomainError("unavailable", "Rate limit state unavailable; retry later");
    }),
    creditsLeft(sources.db, principal.tenant.accountId, now, sources.monthlyAllowance),
  ]);
  return {
    tier: principal.tier,
    rateLimit: { limit, remaining: Math.max(0, limit - window.count), resetAt: new Date(window.resetAtMs) },
    quota: {
      remaining: credits,
      renewsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    },
    key: { id: principal.keyId, kind: principal.tenant.mode },
  };
}
