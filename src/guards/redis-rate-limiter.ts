import { Redis } from "ioredis";
import type { RateLimiter } from "../domain/rate-limiter.ts";
import { WINDOW_MS, type WindowDecision } from "../domain/rolling-window.ts";
import { GRANT_LIFETIME_MS, nextGrantSize, takeFromGrant, unusedOf, type WindowGrant } from "../domain/window-grant.ts";
import { answeredWithin } from "./answered-within.ts";
import { ACQUIRE_GRANT, PEEK_WINDOW, RELEASE_GRANT, SETTLE_GRANT } from "./redis-window-scripts.ts";

// The rolling windows of src/domain/rolling-window.ts, kept in Redis so every
// instance sees one window per key. A busy key is not asked of Redis on every
// request: this instance takes a grant (src/domain/window-grant.ts), a few of
// the window's requests reserved at once, and lets requests in on it for up to
// a second; the next grant settles the last one as the requests it let in, at
// the time of the latest, and a sweep settles the grants of keys gone quiet, so
// nothing reserved and unused is held for more than about two seconds. A key
// near its limit gets what is left and no more: no instance ever lets in more
// than the window allows.
//
// Every command gives up after `commandTimeoutMs`: a Redis that is stopped but
// not dead keeps its connection open and answers nothing, and a request must
// not wait for it (src/guards/fallback-rate-limiter.ts decides what then). A
// grant or a settlement whose answer never came may still be run by Redis
// later; each is remembered and put right by `recover()` before this limiter
// is trusted again.

interface HeldGrant extends WindowGrant {
  /** Its member in the key's sorted set, and the id it is settled under. */
  readonly member: string;
  readonly id: string;
}

interface KeyState {
  grant?: HeldGrant;
  /** A grant being taken: the key's other requests wait for it rather than each asking Redis. */
  acquiring?: Promise<WindowDecision | undefined>;
}

type Reply = [number, number, number, number];

/** Windows shared through Redis, and the way back to them after Redis did not answer. */
export interface SharedRateLimiter extends RateLimiter {
  /** Resolves once Redis answers and what went unanswered before has been put right; rejects otherwise. */
  recover(): Promise<void>;
}

export interface RedisRateLimiterOptions {
  readonly url: string;
  /** How long a command may go unanswered before it fails. */
  readonly commandTimeoutMs: number;
}

/** At most this many unanswered grants and settlements are remembered; beyond, they expire with their windows. */
const MAX_REPAIRS = 10_000;
/** Reconnection attempts come at most this far apart, so a Redis that is back is found quickly. */
const MAX_RECONNECT_DELAY_MS = 500;

export function createRedisRateLimiter(options: RedisRateLimiterOptions): SharedRateLimiter {
  const redis = new Redis(options.url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    // A host that drops packets would hold each reconnection attempt for ioredis's default 10 s.
    connectTimeout: Math.max(options.commandTimeoutMs, 1000),
    retryStrategy: (times) => Math.min(times * 50, MAX_RECONNECT_DELAY_MS),
  });
  redis.on("error", () => {}); // reported per call; reconnects on its own
  redis.defineCommand("acquireGrant", { numberOfKeys: 1, lua: ACQUIRE_GRANT });
  redis.defineCommand("settleGrant", { numberOfKeys: 1, lua: SETTLE_GRANT });
  redis.defineCommand("releaseGrant", { numberOfKeys: 1, lua: RELEASE_GRANT });
  redis.defineCommand("peekWindow", { numberOfKeys: 1, lua: PEEK_WINDOW });
  const defined = redis as unknown as Record<
    "acquireGrant" | "settleGrant" | "releaseGrant" | "peekWindow",
    (...args: unknown[]) => Promise<number[]>
  >;
  // Each command is given up on after the timeout (answered-within.ts: not after a stall of this process's own).
  // ioredis's own commandTimeout would fire after such a stall, before the reply already waiting was read.
  const within = <T>(command: Promise<T>) => answeredWithin(command, options.commandTimeoutMs);
  const scripts = {
    acquireGrant: (...args: unknown[]) => within(defined.acquireGrant(...args)),
    settleGrant: (...args: unknown[]) => within(defined.settleGrant(...args)),
    releaseGrant: (...args: unknown[]) => within(defined.releaseGrant(...args)),
    peekWindow: (...args: unknown[]) => within(defined.peekWindow(...args)),
  };
  const instance = Math.random().toString(36).slice(2);
  let sequence = 0;
  const keys = new Map<string, KeyState>();
  /** What Redis may or may not have done, to be put right once it answers: each is safe to run twice. */
  const repairs: (() => Promise<unknown>)[] = [];
  const remember = (repair: () => Promise<unknown>) => {
    if (repairs.length < MAX_REPAIRS) repairs.push(repair);
  };

  const settle = (key: string, grant: HeldGrant) => {
    const run = () => scripts.settleGrant(redisKey(key), grant.member, grant.used, grant.lastUseMs, grant.id);
    return run().catch((error) => {
      remember(run);
      throw error;
    });
  };

  /** Takes a grant for `key`: undefined when one was taken, the refusal when the window is full. */
  const acquire = async (key: string, state: KeyState, max: number, nowMs: number) => {
    const previous = state.grant;
    const id = `${instance}:${sequence++}`;
    const [granted, countBefore, resetAtMs, retryAtMs] = (await scripts
      .acquireGrant(
        redisKey(key),
        nowMs,
        WINDOW_MS,
        max,
        nextGrantSize(previous, max),
        id,
        previous?.member ?? "",
        previous?.used ?? 0,
        previous?.lastUseMs ?? 0,
        previous?.id ?? "",
      )
      .catch((error) => {
        // Redis may yet run it: whatever it would reserve is taken back. The previous grant stays held, to be
        // settled by the next one (settling twice is settling once).
        remember(() => scripts.releaseGrant(redisKey(key), id));
        throw error;
      })) as Reply;
    if (state.grant === previous) state.grant = undefined;
    if (granted === 0) return { allowed: false, count: countBefore, resetAtMs, retryAtMs };
    state.grant = {
      member: `${granted}#${id}`,
      id,
      size: granted,
      used: 0,
      countBefore,
      resetAtMs,
      lastUseMs: nowMs,
      expiresAt: performance.now() + GRANT_LIFETIME_MS,
    };
    return undefined;
  };

  // Lapsed grants of keys gone quiet are settled, and the states of idle keys dropped.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [key, state] of keys) {
      const { grant } = state;
      if (state.acquiring !== undefined) continue;
      if (grant === undefined) {
        keys.delete(key);
        continue;
      }
      if (now < grant.expiresAt) continue;
      state.grant = undefined;
      settle(key, grant).catch(() => {}); // settled by recover() once Redis answers
    }
  }, GRANT_LIFETIME_MS);
  sweep.unref();

  return {
    async hit(key, max, nowMs) {
      let state = keys.get(key);
      if (state === undefined) {
        state = {};
        keys.set(key, state);
      }
      for (;;) {
        const taken = state.grant === undefined ? undefined : takeFromGrant(state.grant, nowMs, performance.now());
        if (taken !== undefined) return taken;
        if (state.acquiring !== undefined) {
          // A grant that could not be taken fails its waiters too: each asking again in turn would keep them
          // waiting a command timeout apiece on a Redis that does not answer.
          await state.acquiring;
          continue;
        }
        const acquiring = acquire(key, state, max, nowMs);
        state.acquiring = acquiring;
        try {
          const refused = await acquiring;
          if (refused !== undefined) return refused;
        } finally {
          if (state.acquiring === acquiring) state.acquiring = undefined;
        }
      }
    },
    async peek(key, nowMs) {
      const [count, resetAtMs] = (await scripts.peekWindow(redisKey(key), nowMs, WINDOW_MS)) as [number, number];
      // What this instance holds unused is reserved, not used.
      return { count: count - unusedOf(keys.get(key)?.grant), resetAtMs };
    },
    async recover() {
      await within(redis.ping());
      while (repairs.length > 0) {
        await repairs[0]();
        repairs.shift();
      }
    },
    async close() {
      clearInterval(sweep);
      const held = [...keys].flatMap(([key, state]) => (state.grant === undefined ? [] : [settle(key, state.grant)]));
      keys.clear();
      await Promise.allSettled(held);
      redis.disconnect();
    },
  };
}

function redisKey(key: string): string {
  return `ratelimit:${key}`;
}
