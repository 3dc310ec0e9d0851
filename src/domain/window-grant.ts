import type { WindowDecision } from "./rolling-window.ts";

// A share of a shared rolling window that one instance may hand out by itself:
// `size` requests reserved in the shared window at once, used here one by one
// without asking the shared store again, for a short while. What it tells each
// request is what the shared window said when the share was taken, plus the
// requests this instance let in since.

export interface WindowGrant {
  readonly size: number;
  used: number;
  /** Requests in the shared window before this grant (other instances' and earlier grants'). */
  readonly countBefore: number;
  readonly resetAtMs: number;
  /** The caller's clock when the last request used it (the time its requests are kept under). */
  lastUseMs: number;
  /** Monotonic time (performance.now) after which it is no longer used. */
  readonly expiresAt: number;
}

/** How long a grant is used: its requests are counted from when it was taken, so this is also how far off they may be. */
export const GRANT_LIFETIME_MS = 1000;

/**
 * The largest grant for a window of `max` requests: 1 % of it, so that what one instance holds unused is
 * little of what the others may have; a window of fewer than 200 (the Free tier's) is asked for one request at a time.
 */
export function largestGrant(max: number): number {
  return Math.max(1, Math.floor(max / 100));
}

/**
 * The size to ask for next, from how the last grant went: twice as large when it was used up while it
 * lasted, as many as it used (at least one) when it was not.
 */
export function nextGrantSize(last: WindowGrant | undefined, max: number): number {
  const size = last === undefined ? 1 : last.used >= last.size ? last.size * 2 : Math.max(1, last.used);
  return Math.min(size, largestGrant(max));
}

/** One request let in on `grant`, or undefined when it is used up or has lapsed. */
export function takeFromGrant(grant: WindowGrant, nowMs: number, monotonicNow: number): WindowDecision | undefined {
  if (grant.used >= grant.size || monotonicNow >= grant.expiresAt) return undefined;
  grant.used += 1;
  if (nowMs > grant.lastUseMs) grant.lastUseMs = nowMs;
  return { allowed: true, count: grant.countBefore + grant.used, resetAtMs: grant.resetAtMs, retryAtMs: nowMs };
}

/** What of `grant` is unused and still held in the shared window. */
export function unusedOf(grant: WindowGrant | undefined): number {
  return grant === undefined ? 0 : grant.size - grant.used;
}
