import type { Config } from "../config.ts";
import type { Clock } from "../domain/clock.ts";
import type { RateLimiter } from "../domain/rate-limiter.ts";

// Forms that create something or send mail (sign-up, password reset) are
// counted per client address and for everyone together, in rolling minutes:
// one address cannot make accounts (each with its free credits) or mail in
// bulk, and a crowd of addresses together cannot either.

export type ThrottleDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * A dashboard form's throttle at the service's settings. Counted per instance, as sign-in failures are: a
 * store shared by every instance would be one more thing a sign-up waits on, and N instances allow at most N
 * times the limit, which still bounds what one address can make.
 */
export async function throttleDashboardForm(
  attempts: RateLimiter,
  deps: { readonly clock: Clock; readonly dashboard: Config["dashboard"] },
  form: "sign-up" | "reset",
  clientAddress: string,
): Promise<ThrottleDecision> {
  const { perAddress, global } = deps.dashboard.signupsPerMinute;
  return throttleForm(attempts, { form, clientAddress, perAddress, global, nowMs: deps.clock.now().getTime() });
}

export async function throttleForm(
  attempts: RateLimiter,
  input: { form: string; clientAddress: string; perAddress: number; global: number; nowMs: number },
): Promise<ThrottleDecision> {
  const { form, nowMs } = input;
  const byAddress = await attempts.hit(`${form}:address:${input.clientAddress}`, input.perAddress, nowMs);
  if (!byAddress.allowed) return refused(byAddress.retryAtMs, nowMs);
  const overall = await attempts.hit(`${form}:all`, input.global, nowMs);
  if (!overall.allowed) return refused(overall.retryAtMs, nowMs);
  return { allowed: true };
}

function refused(retryAtMs: number, nowMs: number): ThrottleDecision {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((retryAtMs - nowMs) / 1000)) };
}
