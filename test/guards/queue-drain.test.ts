import { describe, expect, test } from "vitest";
import { createQueueDrain } from "../../src/domain/queue-drain.ts";

// The admission queue's bookkeeping on its own, with time moved by hand.

function drainWith(burstMs = 50, forgetAfterMs = 1000) {
  let nowMs = 0;
  const drain = createQueueDrain({ burstMs, forgetAfterMs }, () => nowMs);
  return { drain, advance: (ms: number) => (nowMs += ms) };
}

/** Every 10 ms for `ms`: `arriving` calls arrive and queue, one is let in from the queue. */
function stream(harness: ReturnType<typeof drainWith>, ms: number, arriving: number) {
  const { drain, advance } = harness;
  for (let elapsed = 0; elapsed < ms; elapsed += 10) {
    for (let i = 0; i < arriving; i++) drain.arrived();
    advance(10);
    drain.placeGiven();
    drain.admitted();
  }
}

describe("the queue's drain", () => {
  test("forecasts nothing while nothing is known, then the time a call takes over the limit, then as fast as calls are let in", () => {
    const { drain, advance } = drainWith();
    drain.joined(true);
    expect(drain.forecastWaitMs(3, 0, 2)).toBe(0);
    expect(drain.forecastWaitMs(3, 20, 2)).toBe(30);
    // One call let in every 4 ms for 100 ms: a place every 4 ms.
    for (let i = 0; i < 25; i++) {
      advance(4);
      drain.placeGiven();
      drain.admitted();
    }
    expect(drain.forecastWaitMs(3, 20, 2)).toBeCloseTo(12, 0);
  });

  test("many places given at once (the limit grew) do not make the queue look faster than calls are let in", () => {
    const { drain, advance } = drainWith();
    drain.joined(true);
    for (let i = 0; i < 20; i++) {
      advance(10);
      drain.placeGiven();
      drain.admitted();
    }
    for (let i = 0; i < 10; i++) {
      drain.placeGiven(); // ten places at the same moment
      drain.admitted();
    }
    // 30 calls in 200 ms: a place about every 6.7 ms, not every 0.
    expect(drain.forecastWaitMs(1, 20, 2)).toBeGreaterThan(6);
  });

  test("a queue stuck for longer than a call takes adds how much longer to every forecast; a shorter wait does not", () => {
    const { drain, advance } = drainWith();
    drain.joined(true);
    advance(10);
    drain.placeGiven();
    advance(15);
    expect(drain.forecastWaitMs(2, 20, 2)).toBe(20);
    advance(25);
    expect(drain.forecastWaitMs(2, 20, 2)).toBe(20 + 20);
  });

  test("forgets how fast it drained after standing empty long enough", () => {
    const { drain, advance } = drainWith(50, 1000);
    drain.joined(true);
    for (let i = 0; i < 10; i++) {
      advance(10);
      drain.admitted();
    }
    drain.emptied();
    advance(999);
    drain.joined(true);
    expect(drain.forecastWaitMs(1, 0, 1)).toBeGreaterThan(0);
    drain.emptied();
    advance(1000);
    drain.joined(true);
    expect(drain.forecastWaitMs(1, 0, 1)).toBe(0);
  });

  test("an open stream at twice what is let in is overload once the queue has stood for a burst's length and then some", () => {
    const harness = drainWith(50);
    harness.drain.joined(true);
    stream(harness, 40, 2);
    expect(harness.drain.overloaded()).toBe(false); // 40 ms: still a burst
    stream(harness, 100, 2);
    expect(harness.drain.overloaded()).toBe(true);
  });

  test("a closed loop, arriving as fast as it is let in, is not overload however long its queue stands", () => {
    const harness = drainWith(50);
    harness.drain.joined(true);
    // It starts with a burst: 32 callers at once, of whom few are let in at first.
    for (let i = 0; i < 32; i++) harness.drain.arrived();
    stream(harness, 2000, 1);
    expect(harness.drain.overloaded()).toBe(false);
  });

  test("a gap shorter than a burst does not end the standing queue; a longer one does", () => {
    const harness = drainWith(50);
    const { drain, advance } = harness;
    drain.joined(true);
    stream(harness, 200, 2);
    drain.emptied();
    advance(20);
    drain.joined(true);
    drain.arrived();
    expect(drain.overloaded()).toBe(true);
    drain.emptied();
    advance(50);
    drain.joined(true);
    drain.arrived();
    expect(drain.overloaded()).toBe(false);
  });
});
