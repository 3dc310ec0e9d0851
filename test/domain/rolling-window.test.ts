import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decide, inspect, WINDOW_MS } from "../../src/domain/rolling-window.ts";

const T = 1_700_000_000_000;
const MAX = 110; // the free tier's grace value

function fill(hits: number[], nowMs: number, times: number): void {
  for (let i = 0; i < times; i++) expect(decide(hits, nowMs, MAX).allowed).toBe(true);
}

describe("decide", () => {
  test("110 requests in one instant pass and the 111th is refused", () => {
    const hits: number[] = [];
    for (let i = 1; i <= MAX; i++) {
      const decision = decide(hits, T, MAX);
      expect(decision).toEqual({ allowed: true, count: i, resetAtMs: T + WINDOW_MS, retryAtMs: T });
    }
    expect(decide(hits, T, MAX)).toEqual({
      allowed: false,
      count: MAX,
      resetAtMs: T + WINDOW_MS,
      retryAtMs: T + WINDOW_MS,
    });
  });

  test("refused requests are not recorded", () => {
    const hits: number[] = [];
    fill(hits, T, MAX);
    for (let i = 0; i < 50; i++) expect(decide(hits, T + 1000 + i, MAX).allowed).toBe(false);
    expect(hits).toHaveLength(MAX);
    expect(hits.every((hit) => hit === T)).toBe(true);
    // The refusals did not push the reset further away.
    expect(decide(hits, T + WINDOW_MS, MAX).allowed).toBe(true);
  });

  test("a hit exactly 60 s old is stale: the window rolls at t + 60000", () => {
    const hits: number[] = [];
    fill(hits, T, MAX);
    expect(decide(hits, T + WINDOW_MS - 1, MAX).allowed).toBe(false);
    const rolled = decide(hits, T + WINDOW_MS, MAX);
    expect(rolled).toMatchObject({ allowed: true, count: 1, resetAtMs: T + 2 * WINDOW_MS });
    expect(hits).toEqual([T + WINDOW_MS]);
  });

  test("the window is rolling, not fixed: only hits older than 60 s leave it", () => {
    const hits: number[] = [];
    fill(hits, T, 60);
    fill(hits, T + 30_000, 50);
    // At t + 59 s all 110 are still inside.
    expect(decide(hits, T + 59_000, MAX).allowed).toBe(false);
    // At t + 60 s the first 60 leave, the 50 from t + 30 s stay.
    expect(decide(hits, T + 60_000, MAX)).toMatchObject({ allowed: true, count: 51, resetAtMs: T + 90_000 });
  });

  test("retryAtMs is when one request fits again", () => {
    const hits: number[] = [];
    for (let i = 0; i < MAX; i++) decide(hits, T + i * 100, MAX);
    const refused = decide(hits, T + 20_000, MAX);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAtMs).toBe(T + WINDOW_MS);
    expect(refused.resetAtMs).toBe(T + WINDOW_MS);
    expect(decide(hits, refused.retryAtMs - 1, MAX).allowed).toBe(false);
    expect(decide(hits, refused.retryAtMs, MAX)).toMatchObject({ allowed: true, count: MAX });
  });

  test("retryAtMs accounts for a list longer than max (the limit was lowered)", () => {
    const hits = [T, T + 1, T + 2, T + 3, T + 4];
    const refused = decide(hits, T + 10, 3);
    expect(refused).toMatchObject({ allowed: false, count: 5, retryAtMs: T + 2 + WINDOW_MS });
    expect(decide(hits, T + 2 + WINDOW_MS - 1, 3).allowed).toBe(false);
    expect(decide(hits, T + 2 + WINDOW_MS, 3).allowed).toBe(true);
  });

  test("an empty window allows and resets 60 s from now", () => {
    expect(decide([], T, 1)).toEqual({ allowed: true, count: 1, resetAtMs: T + WINDOW_MS, retryAtMs: T });
  });
});

describe("decide: properties", () => {
  // Ascending request times: gaps of 0 to 70 s, so runs of simultaneous and spread-out requests both occur.
  const requestsArb = fc
    .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 70_000 })), {
      maxLength: 300,
    })
    .map((gaps) => {
      let t = T;
      return gaps.map((gap) => (t += gap));
    });
  const maxArb = fc.integer({ min: 1, max: 12 });

  test("no 60-second window ever holds more than max allowed requests", () => {
    fc.assert(
      fc.property(requestsArb, maxArb, (times, max) => {
        const hits: number[] = [];
        const allowed = times.filter((t) => decide(hits, t, max).allowed);
        for (const t of allowed) {
          expect(allowed.filter((a) => a > t - WINDOW_MS && a <= t).length).toBeLessThanOrEqual(max);
        }
      }),
    );
  });

  test("a request is allowed exactly when fewer than max allowed requests are in the last 60 s", () => {
    fc.assert(
      fc.property(requestsArb, maxArb, (times, max) => {
        const hits: number[] = [];
        const accepted: number[] = [];
        for (const t of times) {
          const inWindow = accepted.filter((a) => a > t - WINDOW_MS).length;
          const decision = decide(hits, t, max);
          expect(decision.allowed).toBe(inWindow < max);
          expect(decision.count).toBe(decision.allowed ? inWindow + 1 : inWindow);
          if (decision.allowed) accepted.push(t);
        }
      }),
    );
  });

  test("a refused request would be allowed at retryAtMs and not a millisecond before", () => {
    fc.assert(
      fc.property(requestsArb, maxArb, (times, max) => {
        const hits: number[] = [];
        for (const t of times) {
          const decision = decide(hits, t, max);
          if (decision.allowed) continue;
          expect(decision.retryAtMs).toBeGreaterThan(t);
          expect(decide([...hits], decision.retryAtMs - 1, max).allowed).toBe(false);
          expect(decide([...hits], decision.retryAtMs, max).allowed).toBe(true);
        }
      }),
    );
  });
});

describe("a window with no allowance", () => {
  test("refuses with finite reset and retry times a full window away", () => {
    const decision = decide([], 1_000, 0);
    expect(decision).toEqual({ allowed: false, count: 0, resetAtMs: 61_000, retryAtMs: 61_000 });
  });
});

describe("inspect", () => {
  test("reports what decide would count, without recording a request", () => {
    const hits: number[] = [];
    fill(hits, T, 3);
    fill(hits, T + 30_000, 2);
    expect(inspect(hits, T + 30_000)).toEqual({ count: 5, resetAtMs: T + WINDOW_MS });
    expect(inspect(hits, T + WINDOW_MS)).toEqual({ count: 2, resetAtMs: T + 30_000 + WINDOW_MS });
    expect(hits).toHaveLength(5);
    expect(inspect([], T)).toEqual({ count: 0, resetAtMs: T + WINDOW_MS });
  });
});
