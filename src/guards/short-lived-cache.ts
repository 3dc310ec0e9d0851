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
  // A burst that finds no entry shares one lookup instead of sending one each.
  const lookingUp = new Map<string, Promise<V>>();
  // Bumped by clear(): a lookup begun before a revocation must not store what it read.
  let generation = 0;

  function lookUpOnce(key: string, lookUp: () => Promise<V>): Promise<V> {
    const startedIn = generation;
    // Remembered from when the read began: how stale an entry may be is counted from there.
    const expiresAt = monotonicNow() + CREDENTIAL_CACHE_TTL_MS;
    const pending = lookUp().then(
      (value) => {
        if (lookingUp.get(key) === pending) lookingUp.delete(key);
        if (startedIn === generation) {
          if (entries.size >= MAX_ENTRIES) entries.clear();
          entries.set(key, { value, expiresAt });
        }
        return value;
      },
      (error: unknown) => {
        if (lookingUp.get(key) === pending) lookingUp.delete(key);
        throw error;
      },
    );
    lookingUp.set(key, pending);
    return pending;
  }

  return {
    get(key, lookUp) {
      const cached = entries.get(key);
      if (cached !== undefined && cached.expiresAt > monotonicNow()) return Promise.resolve(cached.value);
      return lookingUp.get(key) ?? lookUpOnce(key, lookUp);
    },
    clear() {
      generation++;
      entries.clear();
      lookingUp.clear();
    },
  };
}
