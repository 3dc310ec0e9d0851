import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, test } from "vitest";
import type { RateLimiter } from "../../src/domain/rate-limiter.ts";
import { WINDOW_MS } from "../../src/domain/rolling-window.ts";
import { GRANT_LIFETIME_MS } from "../../src/domain/window-grant.ts";
import { createRedisRateLimiter } from "../../src/guards/redis-rate-limiter.ts";

// The shared windows in a real Redis (REDIS_URL, else the local one CI starts). A busy key is let in on grants,
// a few of its window's requests reserved at once; what each instance lets in must still add up to the window,
// each request must still be told the window's exact count, and what an instance holds unused must go back.

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redis = new Redis(url);
const limiters: RateLimiter[] = [];
afterAll(async () => {
  await Promise.all(limiters.map((limiter) => limiter.close()));
  redis.disconnect();
});

/** A limiter whose connection is up (it does not queue commands while it connects). */
async function limiter(): Promise<RateLimiter> {
  const created = createRedisRateLimiter({ url, commandTimeoutMs: 5_000 });
  limiters.push(created);
  for (let attempt = 0; ; attempt++) {
    try {
      await created.peek("connected", t0);
      return created;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const freshKey = () => `test-${randomUUID()}`;
const t0 = Date.parse("2031-03-01T10:00:00.000Z");

describe("the Redis rate limiter", () => {
  test("a busy key is let in on grants: 100 requests, each told its exact count, from a handful of Redis members", async () => {
    const instance = await limiter();
    const key = freshKey();
    const counts: number[] = [];
    for (let i = 0; i < 100; i++) {
      const decision = await instance.hit(key, 11_000, t0 + i);
      expect(decision.allowed).toBe(true);
      counts.push(decision.count);
    }
    expect(counts).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // Grants of 1, 2, 4, …: one member each, not one per request.
    expect(await redis.zcard(`ratelimit:${key}`)).toBeLessThanOrEqual(8);
  });

  test("two instances never let in more than the window: 5,000 requests at once against 3,300", async () => {
    const [a, b] = [await limiter(), await limiter()];
    const key = freshKey();
    const decisions = await Promise.all(
      Array.from({ length: 5_000 }, (_, i) => (i % 2 === 0 ? a : b).hit(key, 3_300, t0)),
    );
    const allowed = decisions.filter((decision) => decision.allowed);
    expect(allowed).toHaveLength(3_300);
    for (const refused of decisions.filter((decision) => !decision.allowed)) {
      expect(refused.count).toBe(3_300);
      expect(refused.retryAtMs).toBe(t0 + WINDOW_MS);
    }
    expect((await a.peek(key, t0)).count + (await b.peek(key, t0)).count).toBe(2 * 3_300);
  });

  test("what an instance holds unused goes back once its grant lapses, to be let in by another", async () => {
    const [a, b] = [await limiter(), await limiter()];
    const key = freshKey();
    // A window of 300 is shared out 3 at most: a's second grant is 2 requests, of which it uses 1.
    expect((await a.hit(key, 300, t0)).allowed).toBe(true);
    expect((await a.hit(key, 300, t0)).allowed).toBe(true);
    let lettedInByB = 0;
    while ((await b.hit(key, 300, t0)).allowed) lettedInByB += 1;
    expect(lettedInByB).toBe(297);
    // The peek leaves out what a holds unused; b's does not know of it.
    expect((await a.peek(key, t0)).count).toBe(299);
    const until = Date.now() + 4 * GRANT_LIFETIME_MS;
    while (Date.now() < until && !(await b.hit(key, 300, t0)).allowed) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await b.peek(key, t0)).count).toBe(300);
    expect((await b.hit(key, 300, t0)).allowed).toBe(false);
  });

  test("the window still rolls: a full window lets one in again when its oldest request leaves, 60 s later", async () => {
    const instance = await limiter();
    const key = freshKey();
    for (let i = 0; i < 300; i++) expect((await instance.hit(key, 300, t0 + Math.floor(i / 100))).allowed).toBe(true);
    const refused = await instance.hit(key, 300, t0 + 10);
    expect(refused).toMatchObject({ allowed: false, count: 300, retryAtMs: t0 + WINDOW_MS });
    expect((await instance.hit(key, 300, t0 + WINDOW_MS - 1)).allowed).toBe(false);
    const again = await instance.hit(key, 300, t0 + WINDOW_MS);
    expect(again.allowed).toBe(true);
    expect(again.count).toBeLessThanOrEqual(300);
  });
});
