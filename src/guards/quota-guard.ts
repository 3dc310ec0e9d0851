import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import { QuotaExhaustedSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import type { Clock } from "../domain/clock.ts";
import type { Charge } from "../store/billing/charge.ts";
import { creditsLeft, type MonthlyAllowance } from "../store/billing/quota-slots.ts";
import type { Db } from "../store/engine/database.ts";
import type { UsageMeter } from "../usage/usage-meter.ts";
import { chargeKey, completesCallKey, principalKey } from "./context-values.ts";
import type { CreditsLowWatch } from "./credits-low-watch.ts";
import { isBilled } from "./method-access.ts";

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
 * charge in the context), so only calls that commit are billed and
 * concurrent calls never take more credits than there are: a call that finds
 * the last one gone is undone and refused too.
 *
 * The check before the handler is an early answer, not the rule, so a credit
 * count this instance saw less than half a second ago stands in for it on the
 * hot path; only positive counts are remembered, so an account that ran out
 * is always looked up afresh (and a top-up is seen at once).
 *
 * A request that completes a call already let in (completesCallKey: a
 * platform's end-of-call report) is saved unbilled when no credit is left,
 * rather than lost: the platform cannot be asked to send it again later.
 */
export function quotaGuard(options: QuotaGuardOptions): Interceptor {
  const { db, clock, monthlyAllowance } = options;
  const knownCredits = new Map<string, { credits: number; seenAt: number }>();
  const remember = (accountId: string, credits: number) => {
    if (credits <= 0) return knownCredits.delete(accountId);
    if (knownCredits.size >= MAX_KNOWN_ACCOUNTS) knownCredits.clear();
    knownCredits.set(accountId, { credits, seenAt: performance.now() });
  };
  const creditsBefore = async (accountId: string) => {
    const known = knownCredits.get(accountId);
    if (known !== undefined && performance.now() - known.seenAt < KNOWN_CREDITS_TTL_MS) return known.credits;
    const credits = await creditsLeft(db, accountId, clock.now(), monthlyAllowance);
    remember(accountId, credits);
    return credits;
  };
  return (next) => async (req) => {
    const principal = req.contextValues.get(principalKey);
    if (principal === undefined || !isBilled(req.method)) return next(req);
    const accountId = principal.tenant.accountId;
    const exhausted = () => {
      options.meter?.refused(principal.tenant, "quota");
      return new ConnectError("Monthly quota exhausted", Code.ResourceExhausted, { "x-quota-remaining": "0" }, [
        {
          desc: QuotaExhaustedSchema,
          value: create(QuotaExhaustedSchema, { quotaRemaining: 0, billingAccountId: principal.billingAccountId }),
        },
      ]);
    };

    const before = await creditsBefore(accountId);
    const unbilled = () => {
      options.log?.warn({ keyId: principal.keyId }, "call completed unbilled: no credit left");
      return withQuotaHeader(next(req), "0");
    };
    if (before <= 0 && req.contextValues.get(completesCallKey)) return unbilled();
    if (before <= 0) {
      options.creditsLow?.seen(accountId, principal.tier, 0);
      throw exhausted();
    }

    let after: number | undefined;
    let refused = false;
    const charge: Charge = {
      accountId,
      allowance: monthlyAllowance,
      charged(creditsLeft) {
        after = creditsLeft;
        options.meter?.billed(principal.tenant, principal.keyId);
        remember(accountId, creditsLeft);
        options.creditsLow?.seen(accountId, principal.tier, creditsLeft);
      },
      refused() {
        refused = true;
        remember(accountId, 0);
      },
    };
    req.contextValues.set(chargeKey, charge);
    try {
      const res = await next(req);
      res.header.set("x-quota-remaining", String(after ?? before));
      return res;
    } catch (error) {
      if (refused && req.contextValues.get(completesCallKey)) {
        // Its statement found the last credit gone and undid itself: save it again, without the charge.
        req.contextValues.delete(chargeKey);
        return unbilled();
      }
      if (refused) throw exhausted();
      if (error instanceof ConnectError) error.metadata.set("x-quota-remaining", String(before));
      throw error;
    }
  };
}

async function withQuotaHeader<R extends { header: Headers }>(response: Promise<R>, remaining: string): Promise<R> {
  const res = await response;
  res.header.set("x-quota-remaining", remaining);
  return res;
}
