import { decide, type WindowDecision } from "../domain/rolling-window.ts";

/** Where rolling windows live: in this process, or shared through Redis. */
export interface RateLimiter {
  hit(key: string, max: number, nowMs: number): Promise<WindowDecision>;
  close(): Promise<void>;
}

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
    async close() {
      clearInterval(sweep);
    },
  };
}

function decideEmpty(hits: number[], nowMs: number): boolean {
  return hits.length === 0 || hits[hits.length - 1] <= nowMs - 60_000;
}
