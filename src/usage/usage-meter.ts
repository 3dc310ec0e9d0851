import type { Clock } from "../domain/clock.ts";
import type { Tenant } from "../domain/tenant.ts";
import { addKeyUsage, addUsage, touchKeys, type UsageCount } from "../store/billing/usage-repository.ts";
import type { Db } from "../store/database.ts";

// Counts billed and refused calls per account, mode and day, billed calls
// per key and day, and when each key was last used, in memory; a timer writes them in one or two statements
// every few seconds. The start/end hot path only increments a counter: no
// round trip is added to it. A crash loses at most one interval of counts.

export type Refusal = "quota" | "rate";

export interface UsageMeter {
  /** A billed call; `keyId` is the key that made it, for the usage per key. */
  billed(tenant: Tenant, keyId?: string): void;
  refused(tenant: Tenant, why: Refusal): void;
  keyUsed(keyId: string): void;
  /** Writes what is counted so far (the dashboard calls it before reading). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A key's last use is written at most once per this interval. */
const KEY_TOUCH_INTERVAL_MS = 60_000;
const MAX_TRACKED_KEYS = 100_000;

export function createUsageMeter(
  db: Db,
  clock: Clock,
  options: { intervalMs: number; onError: (error: unknown) => void },
): UsageMeter {
  let counts = new Map<string, { tenant: Tenant; day: string; billed: number; quota: number; rate: number }>();
  let touches = new Map<string, Date>();
  let perKey = new Map<string, { keyId: string; day: string; billed: number }>();
  const lastTouched = new Map<string, number>();

  const today = () => clock.now().toISOString().slice(0, 10);
  const countKey = (keyId: string) => {
    const day = today();
    const id = `${keyId}\u0000${day}`;
    const entry = perKey.get(id);
    if (entry === undefined) perKey.set(id, { keyId, day, billed: 1 });
    else entry.billed += 1;
  };
  const count = (tenant: Tenant, field: "billed" | "quota" | "rate") => {
    const day = today();
    const id = `${tenant.accountId}\u0000${tenant.mode}\u0000${day}`;
    let entry = counts.get(id);
    if (entry === undefined) {
      entry = { tenant, day, billed: 0, quota: 0, rate: 0 };
      counts.set(id, entry);
    }
    entry[field] += 1;
  };

  let writing: Promise<void> = Promise.resolve();
  const flush = () => {
    const taken = counts;
    const touched = touches;
    const keyCounts = [...perKey.values()];
    counts = new Map();
    touches = new Map();
    perKey = new Map();
    const rows: UsageCount[] = [...taken.values()].map((e) => ({
      accountId: e.tenant.accountId,
      mode: e.tenant.mode,
      day: e.day,
      billed: e.billed,
      refusedQuota: e.quota,
      refusedRate: e.rate,
    }));
    // One write at a time, in order: a slow database never piles them up.
    writing = writing.then(async () => {
      try {
        await addUsage(db, rows);
        await addKeyUsage(db, keyCounts);
        await touchKeys(db, touched);
      } catch (error) {
        options.onError(error);
      }
    });
    return writing;
  };
  const timer = setInterval(() => void flush(), options.intervalMs);
  timer.unref();

  return {
    billed(tenant, keyId) {
      count(tenant, "billed");
      if (keyId !== undefined) countKey(keyId);
    },
    refused: (tenant, why) => count(tenant, why),
    keyUsed(keyId) {
      const now = clock.now();
      const last = lastTouched.get(keyId);
      if (last !== undefined && now.getTime() - last < KEY_TOUCH_INTERVAL_MS) return;
      if (lastTouched.size >= MAX_TRACKED_KEYS) lastTouched.clear();
      lastTouched.set(keyId, now.getTime());
      touches.set(keyId, now);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
