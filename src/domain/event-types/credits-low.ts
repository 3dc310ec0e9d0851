import { defineEventType } from "./event-type.ts";

// credits.low: a share of the month's quota (CREDITS_LOW_THRESHOLDS in ../events.ts) has been used.

export const creditsLow = defineEventType("credits.low", "80 % and 100 % of the month's credits are used");

export interface CreditsLowData {
  readonly threshold_percent: number;
  readonly credits_left: number;
  readonly monthly_quota: number;
  readonly period: string;
}

/** credits.low's data, whoever notices the threshold: a call's charge or the sweep. */
export function creditsLowData(threshold: number, left: number, allowance: number, period: string): CreditsLowData {
  return { threshold_percent: threshold, credits_left: Math.max(left, 0), monthly_quota: allowance, period };
}
