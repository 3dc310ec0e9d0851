import type { AccountDeps } from "../accounts/account-deps.ts";
import { getAccount } from "../accounts/get-account.ts";
import { BASE_LIMIT_PER_MINUTE, type Tier } from "../domain/tiers.ts";
import { listUsageDays } from "../store/billing/usage-repository.ts";
import type { UsageMeter } from "./usage-meter.ts";

const USAGE_DAYS = 30;

export interface UsageDay {
  /** "2026-11-23" (UTC). */
  readonly day: string;
  readonly test: number;
  readonly prod: number;
  readonly refusedQuota: number;
  readonly refusedRate: number;
}

export interface AccountUsage {
  readonly tier: Tier;
  readonly ratePerMinute: number;
  readonly monthlyAllowance: number;
  readonly creditsLeft: number;
  /** When the credits renew: the first moment of the next UTC month. */
  readonly renewsAt: Date;
  /** The last 30 days, oldest first, today included. */
  readonly days: readonly UsageDay[];
}

/** What the account used, with the counts of this instance written first. */
export async function accountUsage(deps: AccountDeps, meter: UsageMeter, accountId: string): Promise<AccountUsage> {
  await meter.flush();
  const { db } = deps;
  const now = deps.clock.now();
  const { tier, quotaRemaining } = await getAccount(deps, accountId);
  const days = lastDays(now, USAGE_DAYS);
  const rows = await listUsageDays(db, accountId, days[0]!);
  const byDay = new Map(days.map((day) => [day, { day, test: 0, prod: 0, refusedQuota: 0, refusedRate: 0 }]));
  for (const row of rows) {
    const entry = byDay.get(row.day);
    if (entry === undefined) continue;
    entry[row.mode] += row.billed;
    entry.refusedQuota += row.refusedQuota;
    entry.refusedRate += row.refusedRate;
  }
  return {
    tier,
    ratePerMinute: BASE_LIMIT_PER_MINUTE[tier],
    monthlyAllowance: deps.monthlyQuota[tier],
    creditsLeft: quotaRemaining,
    renewsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
    days: [...byDay.values()],
  };
}

function lastDays(now: Date, count: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: count }, (_, i) =>
    new Date(today - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}
