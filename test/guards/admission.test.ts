import { describe, expect, test } from "vitest";
import {
  type Admission,
  type AdmissionOptions,
  createAdmissionControl,
  IDLE_RESTART_MS,
} from "../../src/guards/admission.ts";
import { createConcurrencyLimit } from "../../src/guards/concurrency-limit.ts";

// The admission control and its limit on their own, with time moved by hand.

function controlWith(overrides: Partial<AdmissionOptions> = {}) {
  let nowMs = 0;
  const control = createAdmissionControl({
    enabled: true,
    limit: { initial: 2, min: 2, max: 2 },
    queueSize: 1,
    queueWaitMs: 20,
    now: () => nowMs,
    ...overrides,
  });
  return { control, advance: (ms: number) => (nowMs += ms) };
}

const open = () => new AbortController().signal;

function permitOf(admission: Admission) {
  if (!("permit" in admission)) throw new Error(`refused: ${admission.refused}`);
  return admission.permit;
}

describe("the concurrency limit", () => {
  test("grows while latency stays flat and calls fill it", () => {
    const limit = createConcurrencyLimit({ initial: 10, min: 2, max: 100 });
    for (let i = 0; i < 200; i++) limit.sample(5, limit.value);
    expect(limit.value).toBe(100);
  });

  test("shrinks when latency rises well above its long-run level", () => {
    const limit = createConcurrencyLimit({ initial: 50, min: 2, max: 100 });
    for (let i = 0; i < 100; i++) limit.sample(5, 50);
    const before = limit.value;
    for (let i = 0; i < 30; i++) limit.sample(60, limit.value);
    expect(limit.value).toBeLessThan(before / 2);
    expect(limit.value).toBeGreaterThanOrEqual(2);
  });

  test("shrinks by a tenth for every call that ran out of time, down to its floor", () => {
    const limit = createConcurrencyLimit({ initial: 100, min: 20, max: 200 });
    limit.drop();
    expect(limit.value).toBe(90);
    for (let i = 0; i < 50; i++) limit.drop();
    expect(limit.value).toBe(20);
  });

  test("past its latency ceiling it shrinks and stops growing, even when the slowness has become the long-run norm", () => {
    const capped = createConcurrencyLimit({ initial: 40, min: 2, max: 100, maxLatencyMs: 250 });
    const trendOnly = createConcurrencyLimit({ initial: 40, min: 2, max: 100 });
    for (let i = 0; i < 300; i++) {
      capped.sample(1000, capped.value);
      trendOnly.sample(1000, trendOnly.value);
    }
    expect(trendOnly.value).toBe(100);
    expect(capped.value).toBe(2);
  });

  test("below its latency ceiling it grows as before", () => {
    const limit = createConcurrencyLimit({ initial: 10, min: 2, max: 100, maxLatencyMs: 250 });
    for (let i = 0; i < 200; i++) limit.sample(5, limit.value);
    expect(limit.value).toBe(100);
  });

  test("restarts from its initial value, never lower than it is", () => {
    const shrunk = createConcurrencyLimit({ initial: 20, min: 5, max: 200 });
    for (let i = 0; i < 50; i++) shrunk.drop();
    expect(shrunk.value).toBe(5);
    shrunk.restart();
    expect(shrunk.value).toBe(20);
    const grown = createConcurrencyLimit({ initial: 20, min: 5, max: 200 });
    for (let i = 0; i < 200; i++) grown.sample(5, grown.value);
    grown.restart();
    expect(grown.value).toBe(200);
  });

  test("does not grow on calls that never filled half of it", () => {
    const limit = createConcurrencyLimit({ initial: 10, min: 2, max: 100 });
    for (let i = 0; i < 100; i++) limit.sample(5, 1);
    expect(limit.value).toBe(10);
  });
});

describe("admission", () => {
  test("admits up to the limit, queues the next, refuses past the queue at once", async () => {
    const { control } = controlWith();
    const first = permitOf(await control.acquire(open()));
    permitOf(await control.acquire(open()));
    const queued = control.acquire(open());
    expect(await control.acquire(open())).toEqual({ refused: "limit" });
    first.release();
    permitOf(await queued);
    expect(control.stats()).toMatchObject({ inFlight: 2, queued: 0, admitted: 3, refused: { limit: 1 } });
    expect(control.shedding()).toBe(true);
  });

  test("a call that finishes admitted work is let in at once over a full limit and queue, and counted in flight", async () => {
    const { control } = controlWith();
    await control.acquire(open());
    await control.acquire(open());
    void control.acquire(open());
    expect(await control.acquire(open())).toEqual({ refused: "limit" });
    const finishing = permitOf(await control.acquire(open(), () => false, true));
    expect(control.stats()).toMatchObject({ inFlight: 3, queued: 1, refused: { limit: 1 } });
    finishing.release();
    expect(control.stats().inFlight).toBe(2);
  });

  test("a call that finishes admitted work is still refused once its deadline has passed", async () => {
    const { control } = controlWith();
    expect(await control.acquire(open(), () => true, true)).toEqual({ refused: "deadline" });
  });

  test("an early refusal is given only when the limit and the queue are both full, and is counted", async () => {
    const { control } = controlWith();
    await control.acquire(open());
    await control.acquire(open());
    expect(control.refuseEarly()).toBeUndefined();
    void control.acquire(open());
    expect(control.refuseEarly()).toBe("limit");
    expect(control.stats()).toMatchObject({ inFlight: 2, queued: 1, refused: { limit: 1 } });
  });

  test("a call that would wait in the queue longer than it may is refused at once, early too", async () => {
    const { control, advance } = controlWith({ queueSize: 4, queueWaitMs: 20 });
    const first = permitOf(await control.acquire(open()));
    permitOf(await control.acquire(open()));
    // Nothing learnt yet: the queue takes calls up to its size.
    const head = control.acquire(open());
    void control.acquire(open());
    advance(15);
    first.release(); // the head got a place after 15 ms
    permitOf(await head);
    // One call ahead, a place every 15 ms: a second would wait 30 ms of its 20.
    expect(control.stats()).toMatchObject({ inFlight: 2, queued: 1 });
    expect(control.refuseEarly()).toBe("queue_forecast");
    expect(await control.acquire(open())).toEqual({ refused: "queue_forecast" });
    expect(control.stats()).toMatchObject({ queued: 1, refused: { limit: 0, queue_forecast: 2, queue_timeout: 0 } });
  });

  test("a queue whose head has waited long already takes no one behind it", async () => {
    const { control, advance } = controlWith({ queueSize: 4, queueWaitMs: 20 });
    permitOf(await control.acquire(open()));
    permitOf(await control.acquire(open()));
    void control.acquire(open());
    advance(15); // no place for 15 ms: a second in line would wait at least 30
    expect(await control.acquire(open())).toEqual({ refused: "queue_forecast" });
  });

  test("a queue that timed out without a place learns that it does not drain", async () => {
    const { control } = controlWith({ queueSize: 4, queueWaitMs: 20 });
    permitOf(await control.acquire(open()));
    permitOf(await control.acquire(open()));
    const waiting = [control.acquire(open()), control.acquire(open()), control.acquire(open())];
    expect(await Promise.all(waiting)).toEqual(Array(3).fill({ refused: "queue_timeout" }));
    // Each wait ran out: a place comes no faster than every 20 ms, so only the head's place is open.
    const head = control.acquire(open());
    expect(await control.acquire(open())).toEqual({ refused: "queue_forecast" });
    expect(await head).toEqual({ refused: "queue_timeout" });
  });

  test("with the forecast off, the queue takes calls up to its size whatever it drains at", async () => {
    const { control, advance } = controlWith({ queueSize: 4, queueWaitMs: 20, forecastQueueWait: false });
    const first = permitOf(await control.acquire(open()));
    permitOf(await control.acquire(open()));
    const head = control.acquire(open());
    void control.acquire(open());
    advance(15);
    first.release();
    permitOf(await head);
    expect(control.refuseEarly()).toBeUndefined();
    void control.acquire(open());
    expect(control.stats()).toMatchObject({ queued: 2, refused: { limit: 0, queue_forecast: 0 } });
  });

  test("a queue that drains fast enough keeps taking calls up to its size", async () => {
    const { control, advance } = controlWith({ queueSize: 3, queueWaitMs: 20 });
    const first = permitOf(await control.acquire(open()));
    permitOf(await control.acquire(open()));
    const head = control.acquire(open());
    advance(5);
    first.release(); // a place every 5 ms
    permitOf(await head);
    void control.acquire(open());
    void control.acquire(open());
    void control.acquire(open());
    expect(control.stats()).toMatchObject({ queued: 3, refused: { limit: 0, queue_forecast: 0 } });
    expect(await control.acquire(open())).toEqual({ refused: "limit" });
  });

  test("with admission off there is no early refusal", async () => {
    const { control } = controlWith({ enabled: false, queueSize: 0 });
    for (let i = 0; i < 5; i++) await control.acquire(open());
    expect(control.refuseEarly()).toBeUndefined();
  });

  test("a queued call is refused when its wait runs out", async () => {
    const { control } = controlWith();
    await control.acquire(open());
    await control.acquire(open());
    expect(await control.acquire(open())).toEqual({ refused: "queue_timeout" });
  });

  test("a queued call whose deadline passes leaves the queue and is never started", async () => {
    const { control } = controlWith({ queueWaitMs: 10_000 });
    const first = permitOf(await control.acquire(open()));
    await control.acquire(open());
    const deadline = new AbortController();
    const queued = control.acquire(deadline.signal);
    deadline.abort();
    expect(await queued).toEqual({ refused: "deadline" });
    first.release();
    expect(control.stats()).toMatchObject({ inFlight: 1, queued: 0, admitted: 2 });
  });

  test("a queued call found expired when its turn comes gives its place to the next", async () => {
    const { control } = controlWith({ queueSize: 2, queueWaitMs: 10_000 });
    const first = permitOf(await control.acquire(open()));
    await control.acquire(open());
    let expired = false;
    const stale = control.acquire(open(), () => expired);
    const fresh = control.acquire(open());
    expired = true;
    first.release();
    expect(await stale).toEqual({ refused: "deadline" });
    permitOf(await fresh);
  });

  test("a limit shrunk in a burst starts again from its initial value once nothing has been in flight for a while", async () => {
    const { control, advance } = controlWith({ limit: { initial: 10, min: 2, max: 10 } });
    for (let i = 0; i < 30; i++) permitOf(await control.acquire(open())).release({ pastDeadline: true });
    expect(control.stats().limit).toBe(2);
    advance(IDLE_RESTART_MS - 1);
    const early = permitOf(await control.acquire(open()));
    expect(control.stats().limit).toBe(2);
    early.release({ pastDeadline: true });
    advance(IDLE_RESTART_MS);
    permitOf(await control.acquire(open()));
    expect(control.stats().limit).toBe(10);
  });

  test("a call released past its deadline lowers the limit", async () => {
    const { control } = controlWith({ limit: { initial: 10, min: 2, max: 10 } });
    permitOf(await control.acquire(open())).release({ pastDeadline: true });
    expect(control.stats().limit).toBe(9);
  });

  test("pressure refuses new work; off admits everything", async () => {
    const pressed = controlWith({ pressure: () => "event_loop_delay" });
    expect(await pressed.control.acquire(open())).toEqual({ refused: "pressure" });
    expect(pressed.control.shedding()).toBe(true);
    const off = controlWith({ enabled: false, pressure: () => "event_loop_delay" });
    for (let i = 0; i < 10; i++) permitOf(await off.control.acquire(open()));
    expect(off.control.stats().inFlight).toBe(10);
  });

  test("reports shedding for a while after its last refusal, then not", async () => {
    const { control, advance } = controlWith({ queueSize: 0, sheddingHoldMs: 1000 });
    expect(control.shedding()).toBe(false);
    await control.acquire(open());
    await control.acquire(open());
    await control.acquire(open());
    advance(999);
    expect(control.shedding()).toBe(true);
    advance(2);
    expect(control.shedding()).toBe(false);
  });
});
