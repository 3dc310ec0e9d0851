import { describe, expect, test } from "vitest";
import { largestGrant, nextGrantSize, takeFromGrant, type WindowGrant } from "../../src/domain/window-grant.ts";

// How an instance sizes the share of a shared window it takes at once: one request while a key is quiet, twice
// as many while it uses up what it took, as many as it used when it did not, and never more than 1 % of the window.

function grant(size: number, used: number): WindowGrant {
  return { size, used, countBefore: 0, resetAtMs: 0, lastUseMs: 0, expiresAt: 1_000 };
}

describe("grant sizes", () => {
  test("start at one, double while used up, fall back to what was used, and stop at 1 % of the window", () => {
    expect(nextGrantSize(undefined, 11_000)).toBe(1);
    expect(nextGrantSize(grant(1, 1), 11_000)).toBe(2);
    expect(nextGrantSize(grant(64, 64), 11_000)).toBe(110);
    expect(nextGrantSize(grant(110, 110), 11_000)).toBe(110);
    expect(nextGrantSize(grant(32, 5), 11_000)).toBe(5);
    expect(nextGrantSize(grant(32, 0), 11_000)).toBe(1);
  });

  test("a window of fewer than 200 requests (the Free tier's 110) is asked for one at a time", () => {
    expect(largestGrant(110)).toBe(1);
    expect(nextGrantSize(grant(1, 1), 110)).toBe(1);
    expect(largestGrant(660)).toBe(6);
  });
});

describe("taking from a grant", () => {
  test("counts on from the window's count before it, and stops when used up or lapsed", () => {
    const held: WindowGrant = { size: 2, used: 0, countBefore: 40, resetAtMs: 99, lastUseMs: 5, expiresAt: 1_000 };
    expect(takeFromGrant(held, 7, 10)).toEqual({ allowed: true, count: 41, resetAtMs: 99, retryAtMs: 7 });
    expect(held.lastUseMs).toBe(7);
    expect(takeFromGrant(held, 8, 1_000)).toBeUndefined();
    expect(takeFromGrant(held, 8, 20)?.count).toBe(42);
    expect(takeFromGrant(held, 9, 30)).toBeUndefined();
  });
});
