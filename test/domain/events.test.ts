import { describe, expect, test } from "vitest";
import { nextAttemptAt, RETRY_DELAYS_MS } from "../../src/domain/events.ts";

// The default retry schedule, as docs/events.md states it: the number of
// attempts and how long a failing delivery is tried before it has failed.

const HOUR = 60 * 60 * 1000;

/** When each attempt of a delivery that never succeeds is made, from its first at `start`. */
function attemptTimes(start: Date, delays: readonly number[]): Date[] {
  const times = [start];
  for (let next = nextAttemptAt(start, 1, delays); next !== undefined; ) {
    times.push(next);
    next = nextAttemptAt(next, times.length, delays);
  }
  return times;
}

describe("the default retry schedule", () => {
  const start = new Date("2026-11-24T10:00:00Z");
  const times = attemptTimes(start, RETRY_DELAYS_MS);

  test("makes 15 attempts, the first at once", () => {
    expect(times).toHaveLength(15);
    expect(times[0]).toEqual(start);
    expect(times[1]!.getTime() - start.getTime()).toBe(5000);
  });

  test("makes its last attempt about 82.7 hours after the first, past 3 days", () => {
    const spanMs = times.at(-1)!.getTime() - start.getTime();
    expect(spanMs).toBe(RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0));
    expect((spanMs / HOUR).toFixed(1)).toBe("82.7");
    expect(spanMs).toBeGreaterThanOrEqual(72 * HOUR);
  });

  test("never waits less than the time before", () => {
    expect([...RETRY_DELAYS_MS].sort((a, b) => a - b)).toEqual(RETRY_DELAYS_MS);
  });
});
