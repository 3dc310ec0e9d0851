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

export function createShortLivedCache<V>(monotonicNow: () => number = () => performance.now()): ShortLivedCache<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    async get(key, lookUp) {
      const now = monotonicNow();
      const cached = entries.get(key);
      if (cached !== undefined && cached.expiresAt > now) return cached.value;
      const value = await lookUp();
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(key, { value, expiresAt: now + CREDENTIAL_CACHE_TTL_MS });
      return value;
    },
    clear() {
      entries.clear();
    },
  };
}
