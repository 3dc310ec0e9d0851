import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CREDITS_LOW_THRESHOLDS, creditsLeftAtThreshold, creditsLowCrossed } from "../../src/domain/events.ts";

// A call's charge (creditsLowCrossed) and the sweep (creditsLeftAtThreshold,
// compared in SQL) must find the same thresholds crossed.

const allowances = fc.integer({ min: 1, max: 10_000_000 });

describe("credits.low thresholds", () => {
  test("a threshold is crossed once its share of the allowance is used, in whole credits", () => {
    // Credits left near a threshold's boundary, where rounding would show.
    const nearBoundary = fc
      .tuple(allowances, fc.constantFrom(...CREDITS_LOW_THRESHOLDS), fc.integer({ min: -2, max: 2 }))
      .map(([allowance, threshold, off]): [number, number] => [
        allowance,
        Math.trunc((allowance * (100 - threshold)) / 100) + off,
      ]);
    const anywhere = fc.tuple(allowances, fc.integer({ min: -5, max: 10_000_005 }));
    fc.assert(
      fc.property(fc.oneof(nearBoundary, anywhere), ([allowance, left]) => {
        const used = allowance - Math.max(left, 0);
        const expected = CREDITS_LOW_THRESHOLDS.filter((t) => used * 100 >= t * allowance).reverse();
        expect(creditsLowCrossed(left, allowance)).toEqual(expected);
      }),
    );
  });

  test("creditsLeftAtThreshold is the most credits left at which the threshold is crossed", () => {
    fc.assert(
      fc.property(allowances, fc.constantFrom(...CREDITS_LOW_THRESHOLDS), (allowance, threshold) => {
        const atMost = creditsLeftAtThreshold(allowance, threshold)!;
        expect(creditsLowCrossed(atMost, allowance)).toContain(threshold);
        expect(creditsLowCrossed(atMost + 1, allowance)).not.toContain(threshold);
      }),
    );
  });

  test("80 % of 100 is crossed at 20 left and 100 % at 0; no allowance crosses nothing", () => {
    expect(creditsLowCrossed(21, 100)).toEqual([]);
    expect(creditsLowCrossed(20, 100)).toEqual([80]);
    expect(creditsLowCrossed(0, 100)).toEqual([100, 80]);
    expect(creditsLowCrossed(0, 0)).toEqual([]);
    expect(creditsLeftAtThreshold(0, 80)).toBeUndefined();
  });
});
