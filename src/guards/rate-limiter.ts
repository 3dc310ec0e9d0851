import type { RateLimiter } from "../domain/rate-limiter.ts";
import { decide, inspect } from "../domain/rolling-window.ts";

/** Windows of this process only: right for a single instance. */
export function createMemoryRateLimiter(): RateLimiter {
  const windows = new Map<string, number[]>();
  // The windows' own time: the latest moment a caller's clock gave, never the system's.
  let latestMs = Number.NEGATIVE_INFINITY;
  // Drop windows that emptied, so keys seen once do not stay forever.
  const sweep = setInterval(() => {
    for (const [key, hits] of windows) if (decideEmpty(hits, latestMs)) windows.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    async hit(key, max, nowMs) {
      if (nowMs > latestMs) latestMs = nowMs;
      let hits = windows.get(key);
      if (hits === undefined) {
        hits = [];
        windows.set(key, hits);
      }
      return decide(hits, nowMs, max);
    },
    async peek(key, nowMs) {
      return inspect(windows.get(key) ?? [], nowMs);
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

function decideEmpty(hits: number[], nowMs: number): boolean {
  return hits.length === 0 || hits[hits.length - 1] <= nowMs - 60_000;
}
