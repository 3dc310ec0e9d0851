import { ConnectError, type Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import { LRUCache } from "lru-cache";
import type { Clock } from "../domain/clock.ts";
import { creditsLowData } from "../domain/event-types/credits-low.ts";
import { creditsLowCrossed } from "../domain/events.ts";
import type { MonthlyAllowance, Tier } from "../domain/tiers.ts";
import { chargeKey, chargeOutcomeKey, completesCallKey, principalKey } from "../pipeline/context-values.ts";
import { withLimitHeaders, writeLimitHeaders } from "../pipeline/headers.ts";
import { isBilled, reportsQuotaUnbilled } from "../pipeline/method-policy.ts";
import { limitOf, quotaExhausted } from "../pipeline/refusals.ts";
import { creditsLeft, quotaPeriodOf } from "../store/billing/charge.ts";
import { noticeCreditsLow } from "../store/billing/credits-low.ts";
import type { Db } from "../store/database.ts";
import type { UsageMeter } from "../usage/usage-meter.ts";

export interface QuotaGuardOptions {
  readonly db: Db;
  readonly log?: Pick<FastifyBaseLogger, "warn">;
  readonly clock: Clock;
  readonly monthlyAllowance: MonthlyAllowance;
  readonly meter?: UsageMeter;
  /** Told every count of credits left a call sees, for credits.low. */
  readonly creditsLow?: CreditsLowWatch;
}

/** How long a positive credit count seen by this instance spares the check before the handler. */
export const KNOWN_CREDITS_TTL_MS = 500;
const MAX_KNOWN_ACCOUNTS = 10_000;

/**
 * The monthly quota. An account with no credit left is refused before the
 * handler runs. Otherwise the handler's own statement takes the credit (the
 * charge in the context goes down to the statement; the use case returns what
 * became of it, and its method hands that back in chargeOutcomeKey, see
 * billedAnswer in src/rpc/caller-context-service.ts), so only calls that commit are billed
 * and concurrent calls never take more credits than there are: a call that
 * finds the last one gone is undone and refused too.
 *
 * The check before the handler is an early answer, not the rule, so a credit
 * count this instance saw less than half a second ago stands in for it on the
 * hot path, and a burst that finds none shares one look; only positive counts
 * are remembered, so an account that ran out is always looked up afresh (and
 * a top-up is seen at once).
 *
 * A request that completes a call already let in (completesCallKey: a
 * platform's end-of-call report) is saved unbilled when no credit is left,
 * rather than lost: the platform cannot be asked to send it again later.
 */
export function quotaGuard(options: QuotaGuardOptions): Interceptor {
  const { db, clock, monthlyAllowance } = options;
  // Only positive counts are kept: a lookup that finds none (undefined to lru-cache) is not stored. A count
  // written or dropped while a lookup is under way wins over it (ignoreFetchAbort: the lookup still answers).
  const knownCredits = new LRUCache<string, number>({
    max: MAX_KNOWN_ACCOUNTS,
    ttl: KNOWN_CREDITS_TTL_MS,
    ttlResolution: 0,
    ignoreFetchAbort: true,
    fetchMethod: async (accountId) => {
      const credits = await creditsLeft(db, accountId, clock.now(), monthlyAllowance);
      return credits > 0 ? credits : undefined;
    },
  });
  const remember = (accountId: string, credits: number) => {
    if (credits <= 0) return knownCredits.delete(accountId);
    knownCredits.set(accountId, credits);
  };
  // A charge that took its credit from its own slot read no other: what is left is the count this instance last
  // saw, less its own charges since. The count keeps the age it was read at, so it is read afresh within
  // KNOWN_CREDITS_TTL_MS however busy the account: a count by other instances' charges meanwhile is over by those.
  const countDown = (accountId: string, before: number) => {
    const known = knownCredits.get(accountId);
    const left = Math.max(0, (known ?? before) - 1);
    if (left <= 0) knownCredits.delete(accountId);
    else if (known !== undefined) knownCredits.set(accountId, left, { noUpdateTTL: true });
    return left;
  };
  const creditsBefore = async (accountId: string) => (await knownCredits.fetch(accountId)) ?? 0;
  return (next) => async (req) => {
    const principal = req.contextValues.get(principalKey);
    if (principal === undefined) return next(req);
    const accountId = principal.tenant.accountId;
    if (!isBilled(req.method)) {
      if (!reportsQuotaUnbilled(req.method)) return next(req);
      return withLimitHeaders({ quotaRemaining: await creditsBefore(accountId) }, () => next(req));
    }
    const exhausted = () => {
      options.meter?.refused(principal.tenant, "quota");
      return quotaExhausted(principal.billingAccountId);
    };

    const before = await creditsBefore(accountId);
    const unbilled = () => {
      options.log?.warn({ keyId: principal.keyId }, "call completed unbilled: no credit left");
      return next(req).then((res) => {
        writeLimitHeaders(res.header, { quotaRemaining: 0 });
        return res;
      });
    };
    if (before <= 0 && req.contextValues.get(completesCallKey)) return unbilled();
    if (before <= 0) {
      options.creditsLow?.seen(accountId, principal.tier, 0);
      throw exhausted();
    }

    /** Settles the charge: the credits left after it, or undefined when nothing was charged. */
    const settle = (): number | undefined => {
      const outcome = req.contextValues.get(chargeOutcomeKey);
      if (outcome === undefined) return undefined;
      if (!outcome.charged) {
        remember(accountId, 0);
        return undefined;
      }
      options.meter?.billed(principal.tenant, principal.keyId);
      const left = outcome.creditsLeft ?? countDown(accountId, before);
      if (outcome.creditsLeft !== undefined) remember(accountId, left);
      options.creditsLow?.seen(accountId, principal.tier, left);
      return left;
    };
    req.contextValues.set(chargeKey, { accountId, allowance: monthlyAllowance });
    try {
      const res = await next(req);
      writeLimitHeaders(res.header, { quotaRemaining: settle() ?? before });
      return res;
    } catch (error) {
      settle();
      const refused = req.contextValues.get(chargeOutcomeKey)?.charged === false;
      if (refused && req.contextValues.get(completesCallKey)) {
        // Its statement found the last credit gone and undid itself: save it again, without the charge.
        req.contextValues.delete(chargeKey);
        req.contextValues.delete(chargeOutcomeKey);
        return unbilled();
      }
      // The method answered the refusal itself (billedAnswer): counted here, not built again.
      if (refused && limitOf(error) === "quota_exhausted") {
        options.meter?.refused(principal.tenant, "quota");
        throw error;
      }
      if (refused) throw exhausted();
      if (error instanceof ConnectError) writeLimitHeaders(error.metadata, { quotaRemaining: before });
      throw error;
    }
  };
}

// credits.low at 80 % and 100 % of the month's quota: the quota guard reports
// every charge's credits left here. A threshold seen crossed is written once
// per account and period (the database keeps the notice, across instances),
// after the call and off its path: a call never waits for it. What this
// instance has already written is remembered, so the many calls past 80 %
// cost nothing more. A threshold this misses (the instance stopped before
// writing it) is written by the retention sweep (src/jobs/credits-low-sweep.ts).

export interface CreditsLowWatch {
  seen(accountId: string, tier: Tier, creditsLeft: number): void;
}

const MAX_REMEMBERED = 10_000;

export function createCreditsLowWatch(
  db: Db,
  clock: Clock,
  allowance: MonthlyAllowance,
  onError: (error: unknown) => void,
): CreditsLowWatch {
  const written = new Set<string>();
  return {
    seen(accountId, tier, creditsLeft) {
      const monthly = allowance[tier];
      const crossed = creditsLowCrossed(creditsLeft, monthly);
      if (crossed.length === 0) return;
      const now = clock.now();
      const period = quotaPeriodOf(now);
      for (const threshold of crossed) {
        const key = `${accountId}:${period}:${threshold}`;
        if (written.has(key)) continue;
        if (written.size >= MAX_REMEMBERED) written.clear();
        written.add(key);
        const data = creditsLowData(threshold, creditsLeft, monthly, period);
        void noticeCreditsLow(db, accountId, period, threshold, data, now).catch((error) => {
          written.delete(key);
          onError(error);
        });
      }
    },
  };
}
