import { creditsLowData } from "../domain/event-types/credits-low.ts";
import { CREDITS_LOW_THRESHOLDS, creditsLeftAtThreshold } from "../domain/events.ts";
import type { MonthlyAllowance } from "../domain/tiers.ts";
import { TIERS } from "../domain/tiers.ts";
import { quotaPeriodOf } from "../store/billing/charge.ts";
import { findUnnoticedCreditsLow, noticeCreditsLow } from "../store/billing/credits-low.ts";
import type { Db } from "../store/database.ts";

// credits.low is written after a call, off its path (createCreditsLowWatch in src/guards/quota-guard.ts):
// an instance that stops between a call and that statement leaves a threshold
// crossed without its notice or event, and no later call may come that month.
// Each sweep writes those, through the same statement as the watch: whichever
// of the two records a threshold first writes the event, the other nothing.

/** Writes up to `limit` crossed thresholds that have no notice this period; how many it wrote. */
export async function noticeMissedCreditsLow(
  db: Db,
  now: Date,
  allowance: MonthlyAllowance,
  limit: number,
): Promise<number> {
  const period = quotaPeriodOf(now);
  const missed = await findUnnoticedCreditsLow(db, period, allowance, creditsLeftAtThresholds(allowance), limit);
  let written = 0;
  for (const { accountId, threshold, creditsLeft, allowance: monthly } of missed) {
    const data = creditsLowData(threshold, creditsLeft, monthly, period);
    if (await noticeCreditsLow(db, accountId, period, threshold, data, now)) written++;
  }
  return written;
}

/** Per tier with an allowance and per threshold, the most credits left at which it is crossed. */
function creditsLeftAtThresholds(allowance: MonthlyAllowance) {
  return TIERS.flatMap((tier) =>
    CREDITS_LOW_THRESHOLDS.flatMap((threshold) => {
      const creditsLeft = creditsLeftAtThreshold(allowance[tier], threshold);
      return creditsLeft === undefined ? [] : [{ tier, threshold, creditsLeft }];
    }),
  );
}
