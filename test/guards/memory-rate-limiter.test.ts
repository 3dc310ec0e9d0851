import { afterEach, expect, test, vi } from "vitest";
import { createMemoryRateLimiter } from "../../src/guards/rate-limit.ts";

// The in-process windows live on the service's clock, the one every caller
// passes in: their housekeeping must not judge them by the system's time.

afterEach(() => {
  vi.useRealTimers();
});

test("the periodic sweep keeps a window that is full on the service's clock, whatever the system time", async () => {
  vi.useFakeTimers();
  const limiter = createMemoryRateLimiter();
  // A clock set years before the system's: the window is a second old on it.
  const t0 = Date.parse("2020-01-01T00:00:00Z");
  expect((await limiter.hit("key", 1, t0)).allowed).toBe(true);
  vi.advanceTimersByTime(60_000); // the sweep runs
  expect((await limiter.hit("key", 1, t0 + 1_000)).allowed).toBe(false);
  await limiter.close();
});
