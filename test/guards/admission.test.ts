import { describe, expect, test } from "vitest";
import { createConcurrencyLimit } from "../../src/domain/concurrency-limit.ts";
import { type AdmissionOptions, createAdmissionControl, IDLE_RESTART_MS } from "../../src/guards/admission.ts";
import type { Admission, AdmissionRequest } from "../../src/pipeline/admission-control.ts";

// The admission control and its limit on their own, with time moved by hand.

function controlWith(overrides: Partial<AdmissionOptions> = {}) {
  let nowMs = 0;
  const control = createAdmissionControl({
    enabled: true,
    limit: { initial: 2, min: 2, max: 2 },
    queueSize: 1,
    queueWaitMs: 20,
    burstMs: 50,
    now: () => nowMs,
    ...overrides,
  });
  /** A call whose deadline is `budgetMs` after now on the test's clock. */
  const call = (budgetMs = 1000, signal = open()): AdmissionRequest => {
    const deadline = nowMs + budgetMs;
    return { signal, msLeft: () => deadline - nowMs };
  };
  const finishing = (budgetMs = 1000): AdmissionRequest => ({ ...call(budgetMs), finishes: true });
  return { control, call, finishing, advance: (ms: number) => (nowMs += ms) };
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
  test("admits up to the limit, queues the next, refuses past the queue's size at once", async () => {
    const { control, call } = controlWith();
    const first = permitOf(await control.acquire(call()));
    permitOf(await control.acquire(call()));
    const queued = control.acquire(call());
    expect(await control.acquire(call())).toEqual({ refused: "limit" });
    first.release();
    permitOf(await queued);
    expect(control.stats()).toMatchObject({ inFlight: 2, queued: 0, admitted: 3, refused: { limit: 1 } });
    expect(control.shedding()).toBe(true);
  });

  test("a call that finishes admitted work is let in at once over a full limit and queue, and counted in flight", async () => {
    const { control, call, finishing } = controlWith();
    await control.acquire(call());
    await control.acquire(call());
    void control.acquire(call());
    expect(await control.acquire(call())).toEqual({ refused: "limit" });
    const end = permitOf(await control.acquire(finishing()));
    expect(control.stats()).toMatchObject({ inFlight: 3, queued: 1, refused: { limit: 1 } });
    end.release();
    expect(control.stats().inFlight).toBe(2);
  });

  test("a call that finishes admitted work is still refused once its deadline has passed", async () => {
    const { control, finishing } = controlWith();
    expect(await control.acquire(finishing(0))).toEqual({ refused: "deadline" });
  });

  test("an early refusal is given only when the limit and the queue are both full, and is counted", async () => {
    const { control, call } = controlWith();
    await control.acquire(call());
    await control.acquire(call());
    expect(control.refuseEarly()).toBeUndefined();
    void control.acquire(call());
    expect(control.refuseEarly()).toBe("limit");
    expect(control.stats()).toMatchObject({ inFlight: 2, queued: 1, refused: { limit: 1 } });
  });

  test("a burst at a quiet instance waits its turn as far as each call's deadline allows, past the standing wait", async () => {
    const { control, call, advance } = controlWith({ queueSize: 100, queueWaitMs: 20, burstMs: 50 });
    const first = permitOf(await control.acquire(call()));
    permitOf(await control.acquire(call()));
    const head = control.acquire(call());
    advance(10);
    first.release(); // a place every 10 ms
    const headPermit = permitOf(await head);
    // Within the burst: a call 30th in line waits about 300 ms, far past the 20 ms a standing queue allows,
    // but inside its 1 s; one whose own deadline is 100 ms away is refused at once.
    for (let i = 0; i < 29; i++) void control.acquire(call());
    expect(control.stats()).toMatchObject({ queued: 29, refused: { queue_forecast: 0 } });
    expect(await control.acquire(call(100))).toEqual({ refused: "queue_forecast" });
    void control.acquire(call());
    expect(control.stats()).toMatchObject({ queued: 30, refused: { queue_forecast: 1 } });
    // The early refusal knows no deadline: it leaves this call to the full check.
    expect(control.refuseEarly()).toBeUndefined();
    headPermit.release();
  });

  test("the forecast counts the time a call takes once let in against its deadline", async () => {
    const { control, call, advance } = controlWith({ queueSize: 10, queueWaitMs: 1000, burstMs: 1000 });
    const slow = permitOf(await control.acquire(call()));
    advance(300);
    slow.release(); // an admitted call takes 300 ms
    const first = permitOf(await control.acquire(call()));
    permitOf(await control.acquire(call()));
    const head = control.acquire(call());
    advance(10);
    first.release();
    permitOf(await head);
    // Too few calls let in to know a rate: a place every 271 / 2 ms (the smoothed time a call takes over
    // the limit), so about 135 ms of waiting and 271 of work do not fit in 250 ms; they fit in 500.
    expect(await control.acquire(call(250))).toEqual({ refused: "queue_forecast" });
    void control.acquire(call(500));
    expect(control.stats()).toMatchObject({ queued: 1, refused: { queue_forecast: 1 } });
  });

  test("the time a call takes is learnt from calls let in through the limit, not from ends let in over it", async () => {
    const { control, call, finishing, advance } = controlWith({ queueSize: 10, queueWaitMs: 1000, burstMs: 1000 });
    const start = permitOf(await control.acquire(call()));
    advance(10);
    start.release(); // a start takes 10 ms
    const end = permitOf(await control.acquire(finishing()));
    advance(500);
    end.release(); // an end held for 500 ms (its row locked, say) says nothing of how long a start takes
    permitOf(await control.acquire(call()));
    permitOf(await control.acquire(call()));
    void control.acquire(call());
    // Second in line: about 2 × 10 / 2 ms of waiting and 10 of work fit in 100 ms. Had the end counted,
    // the smoothed time would be 59 ms: 59 of waiting and 59 of work would not.
    void control.acquire(call(100));
    expect(control.stats()).toMatchObject({ queued: 2, refused: { queue_forecast: 0 } });
  });

  /**
   * Two calls in flight and two queued at once (nothing learnt: both join); then for `ms`, every 10 ms a
   * place is given and `arrivingPerPlace` new calls arrive (2: an open stream at twice what is served;
   * 1: a closed loop, each caller calling again once answered).
   */
  async function queueFor(harness: ReturnType<typeof controlWith>, ms: number, arrivingPerPlace: number) {
    const { control, call, advance } = harness;
    const permits = [permitOf(await control.acquire(call())), permitOf(await control.acquire(call()))];
    const queued = [control.acquire(call()), control.acquire(call())];
    for (let elapsed = 0; elapsed < ms; elapsed += 10) {
      advance(10);
      permits.shift()?.release();
      const next = queued.shift();
      if (next !== undefined) permits.push(permitOf(await next));
      for (let i = 0; i < arrivingPerPlace; i++) queued.push(control.acquire(call()));
    }
  }

  test("calls arriving faster than they are let in, for longer than a burst: a call forecast to wait past the standing wait is refused at once, early too", async () => {
    const harness = controlWith({ queueSize: 100, queueWaitMs: 250, burstMs: 50 });
    const { control, call } = harness;
    await queueFor(harness, 200, 2);
    expect(control.stats()).toMatchObject({ queued: 22, refused: { queue_forecast: 0 } });
    // About a place every 10 ms: calls join while their wait is forecast within the 250 ms allowed.
    while (control.refuseEarly() === undefined && control.stats().queued < 50) void control.acquire(call());
    expect(control.stats().queued).toBeGreaterThan(22);
    expect(control.stats().queued).toBeLessThanOrEqual(30);
    expect(await control.acquire(call(10_000))).toEqual({ refused: "queue_forecast" });
    expect(control.stats().refused.queue_forecast).toBe(2);
  });

  test("a closed loop's standing queue is served to the deadline, however long it stands", async () => {
    const harness = controlWith({ queueSize: 100, queueWaitMs: 20, burstMs: 50 });
    const { control, call } = harness;
    await queueFor(harness, 300, 1);
    expect(control.stats().queued).toBe(2);
    // Third in line waits 30 ms, over the standing wait; the callers only come back as they are answered.
    expect(control.refuseEarly()).toBeUndefined();
    void control.acquire(call());
    expect(control.stats()).toMatchObject({ queued: 3, refused: { queue_forecast: 0 } });
  });

  test("a queue stuck for longer than a call takes forecasts that much longer a wait", async () => {
    const { control, call, advance } = controlWith({ queueSize: 4, queueWaitMs: 20, burstMs: 10 });
    const quick = permitOf(await control.acquire(call()));
    advance(5);
    quick.release(); // a call takes 5 ms
    permitOf(await control.acquire(call()));
    permitOf(await control.acquire(call()));
    void control.acquire(call());
    advance(15); // no place for 15 ms where a call takes 5: 10 ms stuck, then (nothing learnt) a place every 2.5 ms
    expect(await control.acquire(call(19))).toEqual({ refused: "queue_forecast" }); // 10 + 2 × 2.5 + 5 > 19
    void control.acquire(call(21));
    expect(control.stats()).toMatchObject({ queued: 2, refused: { queue_forecast: 1 } });
  });

  test("with the forecast off, the queue takes calls up to its size whatever it drains at", async () => {
    const harness = controlWith({ queueSize: 100, queueWaitMs: 20, burstMs: 50, forecastQueueWait: false });
    const { control, call } = harness;
    await queueFor(harness, 60, 2);
    expect(control.refuseEarly()).toBeUndefined();
    void control.acquire(call(5));
    expect(control.stats()).toMatchObject({ queued: 9, refused: { limit: 0, queue_forecast: 0 } });
  });

  test("with admission off there is no early refusal", async () => {
    const { control, call } = controlWith({ enabled: false, queueSize: 0 });
    for (let i = 0; i < 5; i++) await control.acquire(call());
    expect(control.refuseEarly()).toBeUndefined();
  });

  test("a queued call is refused when its deadline comes, and never started", async () => {
    // The deadline here is real time: the queue's own timer lets the call go.
    const { control } = controlWith();
    const first = permitOf(await control.acquire({ signal: open(), msLeft: () => 1000 }));
    await control.acquire({ signal: open(), msLeft: () => 1000 });
    const deadline = performance.now() + 30;
    const queued = control.acquire({ signal: open(), msLeft: () => deadline - performance.now() });
    expect(control.stats().queued).toBe(1); // it waits: nothing says it cannot be served in 30 ms
    expect(await queued).toEqual({ refused: "deadline" });
    first.release();
    expect(control.stats()).toMatchObject({ inFlight: 1, queued: 0, admitted: 2, refused: { deadline: 1 } });
  });

  test("a queued call whose caller leaves leaves the queue and is never started", async () => {
    const { control, call } = controlWith();
    const first = permitOf(await control.acquire(call()));
    await control.acquire(call());
    const caller = new AbortController();
    const queued = control.acquire(call(10_000, caller.signal));
    caller.abort();
    expect(await queued).toEqual({ refused: "deadline" });
    first.release();
    expect(control.stats()).toMatchObject({ inFlight: 1, queued: 0, admitted: 2 });
  });

  test("a queued call found past its deadline when its turn comes gives its place to the next", async () => {
    const { control, call, advance } = controlWith({ queueSize: 2 });
    const first = permitOf(await control.acquire(call()));
    await control.acquire(call());
    const stale = control.acquire(call(100));
    const fresh = control.acquire(call(10_000));
    advance(100);
    first.release();
    expect(await stale).toEqual({ refused: "deadline" });
    permitOf(await fresh);
  });

  test("a limit shrunk in a burst starts again from its initial value once nothing has been in flight for a while", async () => {
    const { control, call, advance } = controlWith({ limit: { initial: 10, min: 2, max: 10 } });
    for (let i = 0; i < 30; i++) permitOf(await control.acquire(call())).release({ pastDeadline: true });
    expect(control.stats().limit).toBe(2);
    advance(IDLE_RESTART_MS - 1);
    const early = permitOf(await control.acquire(call()));
    expect(control.stats().limit).toBe(2);
    early.release({ pastDeadline: true });
    advance(IDLE_RESTART_MS);
    permitOf(await control.acquire(call()));
    expect(control.stats().limit).toBe(10);
  });

  test("a call released past its deadline lowers the limit", async () => {
    const { control, call } = controlWith({ limit: { initial: 10, min: 2, max: 10 } });
    permitOf(await control.acquire(call())).release({ pastDeadline: true });
    expect(control.stats().limit).toBe(9);
  });

  test("pressure refuses new work; off admits everything", async () => {
    const pressed = controlWith({ pressure: () => "event_loop_delay" });
    expect(await pressed.control.acquire(pressed.call())).toEqual({ refused: "pressure" });
    expect(pressed.control.shedding()).toBe(true);
    const off = controlWith({ enabled: false, pressure: () => "event_loop_delay" });
    for (let i = 0; i < 10; i++) permitOf(await off.control.acquire(off.call()));
    expect(off.control.stats().inFlight).toBe(10);
  });

  test("reports shedding for a while after its last refusal, then not", async () => {
    const { control, call, advance } = controlWith({ queueSize: 0, sheddingHoldMs: 1000 });
    expect(control.shedding()).toBe(false);
    await control.acquire(call());
    await control.acquire(call());
    await control.acquire(call());
    advance(999);
    expect(control.shedding()).toBe(true);
    advance(2);
    expect(control.shedding()).toBe(false);
  });
});
