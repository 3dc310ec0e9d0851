// The spec's tier table: requests per rolling minute. Requests above the base
// limit and up to the grace value (+10%) succeed with a warning; past it, 429.

export const TIERS = ["free", "starter", "growth", "scale"] as const;
export type Tier = (typeof TIERS)[number];

export const BASE_LIMIT_PER_MINUTE: Readonly<Record<Tier, number>> = {
  free: 100,
  starter: 600,
  growth: 3_000,
  scale: 10_000,
};

export function graceLimit(base: number): number {
  return Math.floor(base * 1.1);
}

export function isTier(value: string): value is Tier {
  return (TIERS as readonly string[]).includes(value);
}

/** Each tier's credits a month, as configured (config.ts). */
export type MonthlyAllowance = Readonly<Record<Tier, number>>;
