import { LRUCache } from "lru-cache";

// Credentials looked up once per burst of requests: each lookup is
// remembered for less than a second on the monotonic clock (tests that move
// the business clock do not freeze it), which bounds how long another
// instance may still accept a credential revoked elsewhere.

export const CREDENTIAL_CACHE_TTL_MS = 500;
const MAX_ENTRIES = 10_000;

export interface ShortLivedCache<V> {
  /** The value remembered for `key`, or what `lookUp` finds, remembered from then. */
  get(key: string, lookUp: () => Promise<V>): Promise<V>;
  clear(): void;
}

/** lru-cache keeps no undefined value, and "no such credential" is worth remembering too. */
interface Found<V> {
  readonly value: V;
}

/**
 * lru-cache's fetch shares one lookup among a burst that finds no entry. A
 * lookup under way when clear() runs (a revocation) still answers those who
 * wait on it, but is not stored: clear() empties the slot the lookup would
 * have filled, and `ignoreFetchAbort` makes lru-cache hand back the value
 * rather than fail the waiters.
 */
export function createShortLivedCache<V>(monotonicNow: () => number = () => performance.now()): ShortLivedCache<V> {
  const cache = new LRUCache<string, Found<V>, () => Promise<V>>({
    max: MAX_ENTRIES,
    ttl: CREDENTIAL_CACHE_TTL_MS,
    // The clock is read on each look (no timer per read), and shifted by one: lru-cache reads a start of 0 as none.
    ttlResolution: 0,
    perf: { now: () => monotonicNow() + 1 },
    ignoreFetchAbort: true,
    async fetchMethod(_key, _stale, { options, context: lookUp }) {
      const startedAt = monotonicNow();
      const value = await lookUp();
      // Counted from when the read began: how stale an entry may be is bounded from there. lru-cache keeps an
      // entry while its age is at most its ttl; ours ends when the time is up, hence the one ms less.
      options.ttl = Math.max(1, Math.floor(startedAt + CREDENTIAL_CACHE_TTL_MS - monotonicNow()) - 1);
      return { value };
    },
  });
  return {
    async get(key, lookUp) {
      const found = await cache.fetch(key, { context: lookUp });
      return (found as Found<V>).value;
    },
    clear() {
      cache.clear();
    },
  };
}
