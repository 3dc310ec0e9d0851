import { ConnectError } from "@connectrpc/connect";

// The one writer of the limit headers every authenticated answer carries (docs/api.md): the rate limit's
// window (x-ratelimit-limit, -remaining, -reset) and the credits left this month (x-quota-remaining), on a
// response, or on an error's metadata when the call fails.

export interface Limits {
  readonly rateLimit?: { readonly limit: number; readonly remaining: number; readonly resetAtMs: number };
  readonly quotaRemaining?: number;
}

export function writeLimitHeaders(headers: Headers, limits: Limits): void {
  const { rateLimit, quotaRemaining } = limits;
  if (rateLimit !== undefined) {
    headers.set("x-ratelimit-limit", String(rateLimit.limit));
    headers.set("x-ratelimit-remaining", String(rateLimit.remaining));
    headers.set("x-ratelimit-reset", String(rateLimit.resetAtMs));
  }
  if (quotaRemaining !== undefined) headers.set("x-quota-remaining", String(quotaRemaining));
}

/**
 * Writes the limits on the answer of `call`, or on its error when it fails with a ConnectError. `limits` may
 * be a function, read once the call has settled (the quota's count after the call's charge).
 */
export async function withLimitHeaders<R extends { header: Headers }>(
  limits: Limits | (() => Limits),
  call: () => Promise<R>,
): Promise<R> {
  const read = typeof limits === "function" ? limits : () => limits;
  try {
    const res = await call();
    writeLimitHeaders(res.header, read());
    return res;
  } catch (error) {
    if (error instanceof ConnectError) writeLimitHeaders(error.metadata, read());
    throw error;
  }
}
