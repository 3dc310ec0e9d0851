import type { Clock } from "../domain/clock.ts";
import { creditsLowData } from "../domain/event-types/credits-low.ts";
import { creditsLowCrossed } from "../domain/events.ts";
import type { MonthlyAllowance, Tier } from "../domain/tiers.ts";
import { quotaPeriodOf } from "../store/billing/charge.ts";
import { noticeCreditsLow } from "../store/billing/credits-low.ts";
import type { Db } from "../store/database.ts";

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
