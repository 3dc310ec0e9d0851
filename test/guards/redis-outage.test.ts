import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createFallbackRateLimiter } from "../../src/guards/fallback-rate-limiter.ts";
import { createRedisRateLimiter, type SharedRateLimiter } from "../../src/guards/redis-rate-limiter.ts";
import { createThrowawayRedis, type ThrowawayRedis } from "../helpers/throwaway-redis.ts";

// The rate limiter when Redis stops answering, against a redis-server of this file's own (paused with SIGSTOP: the
// connection stays open and nothing is answered). Free-sized windows (110), so every request asks Redis.

const MAX = 110;
const t0 = Date.parse("2031-03-01T10:00:00.000Z");
const freshKey = () => `test-${randomUUID()}`;

let redis: ThrowawayRedis;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  redis = await createThrowawayRedis();
});
afterAll(async () => {
  redis.resume();
  await Promise.all(closers.map((close) => close()));
  await redis.remove();
});

/** A limiter on the throwaway Redis whose connection is up (it does not queue commands while it connects). */
async function sharedLimiter(): Promise<SharedRateLimiter> {
  const limiter = createRedisRateLimiter({ url: redis.url, commandTimeoutMs: 1_000 });
  closers.push(() => limiter.close());
  await untilResolves(() => limiter.recover());
  return limiter;
}

async function untilResolves(attempt: () => Promise<unknown>): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await attempt();
      return;
    } catch (error) {
      if (tries >= 100) throw error;
      await sleep(50);
    }
  }
}

describe("the Redis rate limiter when Redis does not answer", () => {
  test("a request fails after the command timeout rather than waiting for a paused Redis", async () => {
    const limiter = await sharedLimiter();
    redis.pause();
    try {
      await expect(limiter.hit(freshKey(), MAX, t0)).rejects.toThrow("Redis did not answer within");
      await expect(limiter.recover()).rejects.toThrow();
    } finally {
      redis.resume();
    }
  });

  test("a grant Redis took after the request gave up on it is taken back once Redis answers: the window counts only what was let in", async () => {
    const limiter = await sharedLimiter();
    const key = freshKey();
    expect((await limiter.hit(key, MAX, t0)).count).toBe(1);
    redis.pause();
    // Redis runs this one when it wakes up, after the request was given up on.
    await expect(limiter.hit(key, MAX, t0 + 1)).rejects.toThrow("Redis did not answer within");
    redis.resume();
    await untilResolves(() => limiter.recover());
    expect((await limiter.peek(key, t0 + 2)).count).toBe(1);
    expect((await limiter.hit(key, MAX, t0 + 3)).count).toBe(2);
  });
});

describe("the rate limiter with Redis configured, while Redis does not answer", () => {
  test("counts in this instance's windows while Redis is paused, and in the shared ones again once it answers", async () => {
    const shared = await sharedLimiter();
    const limiter = createFallbackRateLimiter(shared, { log: pino({ level: "silent" }), recheckMs: 50 });
    closers.push(() => limiter.close());
    const key = freshKey();
    const other = createRedisRateLimiter({ url: redis.url, commandTimeoutMs: 1_000 });
    closers.push(() => other.close());
    await untilResolves(() => other.recover());
    // Three requests in the shared window, one of them through another instance.
    await limiter.hit(key, MAX, t0);
    await limiter.hit(key, MAX, t0 + 1);
    expect((await other.hit(key, MAX, t0 + 2)).count).toBe(3);
    expect(limiter.state()).toEqual({ shared: true, outages: 0 });

    redis.pause();
    let local: number[];
    try {
      // The first request waits for the command timeout, then is counted here; the next are counted here at once.
      local = [];
      for (let i = 0; i < 5; i++) {
        const decision = await limiter.hit(key, MAX, t0 + 10 + i);
        expect(decision.allowed).toBe(true);
        local.push(decision.count);
      }
      expect(limiter.state()).toEqual({ shared: false, outages: 1 });
    } finally {
      redis.resume();
    }
    expect(local).toEqual([1, 2, 3, 4, 5]);

    for (let waited = 0; !limiter.state().shared; waited += 50) {
      if (waited > 5_000) throw new Error("the shared windows were not used again within 5 s of Redis answering");
      await sleep(50);
    }
    // Back in Redis: the window the instances share, which this instance's own requests meanwhile did not reach.
    expect((await limiter.hit(key, MAX, t0 + 20)).count).toBe(4);
    expect((await other.hit(key, MAX, t0 + 21)).count).toBe(5);
    expect(limiter.state()).toEqual({ shared: true, outages: 1 });
  });

  test("a window this instance fills by itself refuses as the shared one would, with the same figures", async () => {
    const shared = await sharedLimiter();
    const limiter = createFallbackRateLimiter(shared, { log: pino({ level: "silent" }), recheckMs: 60_000 });
    closers.push(() => limiter.close());
    redis.pause();
    try {
      const key = freshKey();
      for (let i = 0; i < MAX; i++) expect((await limiter.hit(key, MAX, t0 + i)).allowed).toBe(true);
      expect(await limiter.hit(key, MAX, t0 + MAX)).toEqual({
        allowed: false,
        count: MAX,
        resetAtMs: t0 + 60_000,
        retryAtMs: t0 + 60_000,
      });
    } finally {
      redis.resume();
    }
  });
});
