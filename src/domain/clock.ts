// Time is a dependency: every "now" in the service comes from one Clock, so
// tests can move it (rolling windows, TTLs, retention) without waiting.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved. */
export function createManualClock(
  start: Date = new Date(),
): Clock & { advance(ms: number): void; set(at: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(ms) {
      current += ms;
    },
    set(at) {
      current = at.getTime();
    },
  };
}
