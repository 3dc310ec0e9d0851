// A rolling 60-second window, kept as the times of the requests it accepted.
// Refused requests are not recorded, so a client hammering past the limit
// does not push its own reset further away.

export const WINDOW_MS = 60_000;

export interface WindowDecision {
  readonly allowed: boolean;
  /** Accepted requests in the last 60 seconds, this one included when allowed. */
  readonly count: number;
  /** Epoch ms when the oldest counted request leaves the window (now + 60 s when none). */
  readonly resetAtMs: number;
  /** When refused: epoch ms at which one request would be accepted again. */
  readonly retryAtMs: number;
}

/**
 * Decides one request against the accepted times `hits` (ascending), which it
 * prunes and, when the request is allowed, appends to. `max` is the grace value.
 */
export function decide(hits: number[], nowMs: number, max: number): WindowDecision {
  const since = nowMs - WINDOW_MS;
  let stale = 0;
  while (stale < hits.length && hits[stale] <= since) stale++;
  if (stale > 0) hits.splice(0, stale);

  if (hits.length >= max) {
    // The request fits again once enough of the oldest ones have left; with no
    // allowance at all, not within this window.
    const retryAtMs = max > 0 ? hits[hits.length - max] + WINDOW_MS : nowMs + WINDOW_MS;
    const resetAtMs = hits.length > 0 ? hits[0] + WINDOW_MS : nowMs + WINDOW_MS;
    return { allowed: false, count: hits.length, resetAtMs, retryAtMs };
  }
  hits.push(nowMs);
  return { allowed: true, count: hits.length, resetAtMs: hits[0] + WINDOW_MS, retryAtMs: nowMs };
}

export interface WindowState {
  /** Accepted requests in the last 60 seconds. */
  readonly count: number;
  /** Epoch ms when the oldest counted request leaves the window (now + 60 s when none). */
  readonly resetAtMs: number;
}

/** The window as `decide` would see it now, without recording a request. */
export function inspect(hits: readonly number[], nowMs: number): WindowState {
  const live = hits.filter((hit) => hit > nowMs - WINDOW_MS);
  return { count: live.length, resetAtMs: live.length > 0 ? live[0] + WINDOW_MS : nowMs + WINDOW_MS };
}
