import { monitorEventLoopDelay } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import { type ConcurrencyLimitOptions, createConcurrencyLimit } from "../domain/concurrency-limit.ts";
import { createQueueDrain } from "../domain/queue-drain.ts";
import type { Admission, AdmissionControl, ShedReason } from "../pipeline/admission-control.ts";

// Admission control by deadline, one per instance. At most `limit` calls are
// in flight (a limit that follows measured latency, src/domain/concurrency-limit.ts);
// behind them a queue lets calls in first come, first served. A call that
// finds the limit full joins the queue only if, at the rate the queue has
// given places lately, its turn comes early enough to do its work before its
// deadline (the method's budget, or the client's own shorter one); otherwise
// it is refused at once, so a refusal comes within milliseconds and never
// after a wait for nothing. Everything that can be served in time is served:
// a closed loop of callers or a burst at a quiet instance waits its turn.
// Overload is an open stream beyond capacity: the queue has stood for longer
// than a burst takes to arrive (`burstMs`) while calls kept arriving faster
// than they were let in (src/domain/queue-drain.ts). Then a call joins only if its wait
// is forecast within `queueWaitMs`, so the calls let in stay well inside
// their budget and the rest are refused within milliseconds
// (docs/operations.md, Overload). The process pressure it also reads is
// sampled here too (watchProcessPressure, below).

/**
 * After this long with nothing in flight (or nothing queued), what was learnt
 * under load (the limit, the queue's drain rate) is stale: a burst at a quiet
 * instance is not judged by the last one.
 */
export const IDLE_RESTART_MS = 1000;
/** setTimeout's longest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Weight of each admitted call's time in the smoothed time a call takes once let in. */
const SERVICE_SMOOTHING = 0.1;

export interface AdmissionOptions {
  /** Off: every call is admitted (for comparisons); calls are still counted. */
  readonly enabled: boolean;
  readonly limit: ConcurrencyLimitOptions;
  /** Most calls the queue holds, whatever their deadlines allow: a bound on memory. */
  readonly queueSize: number;
  /** Once the queue stands: the longest wait a call may be forecast to have and still join. */
  readonly queueWaitMs: number;
  /** How long a queue may stand before it counts as overload rather than a burst. */
  readonly burstMs: number;
  /** How long after the last refusal the instance still reports itself shedding. */
  readonly sheddingHoldMs?: number;
  /** Monotonic milliseconds; injectable so tests can move time. */
  readonly now?: () => number;
  /** Why the process should take no new work now, if it should not. */
  readonly pressure?: () => string | undefined;
  /** Off: every call that finds a place in the queue waits in it to its deadline (for comparisons). */
  readonly forecastQueueWait?: boolean;
}

interface Waiter {
  readonly grant: () => void;
}

export function createAdmissionControl(options: AdmissionOptions): AdmissionControl {
  const now = options.now ?? (() => performance.now());
  const holdMs = options.sheddingHoldMs ?? 2000;
  const limit = createConcurrencyLimit(options.limit);
  const drain = createQueueDrain({ burstMs: options.burstMs, forgetAfterMs: IDLE_RESTART_MS }, now);
  const queue: Waiter[] = [];
  const refused: Record<ShedReason, number> = { limit: 0, queue_forecast: 0, pressure: 0, deadline: 0 };
  let inFlight = 0;
  let admitted = 0;
  let lastRefusalAt = Number.NEGATIVE_INFINITY;
  /** Since when nothing has been in flight; undefined while something is. */
  let idleSince: number | undefined = now();
  /**
   * Smoothed milliseconds a call let in through the limit holds its place; 0 until one has finished. Ends,
   * let in over the limit, are left out: the forecast is of a call that would wait in the queue.
   */
  let serviceMs = 0;

  /**
   * Why a call finding the limit full may not join the queue, if it may not.
   * `msLeft` undefined: judged without the call's deadline (before its request is read).
   */
  const queueRefusal = (msLeft: number | undefined): ShedReason | undefined => {
    if (queue.length >= options.queueSize) return "limit";
    if (options.forecastQueueWait === false) return undefined;
    const waitMs = drain.forecastWaitMs(queue.length + 1, serviceMs, limit.value);
    if (drain.overloaded() && waitMs > options.queueWaitMs) return "queue_forecast";
    if (msLeft !== undefined && waitMs + serviceMs > msLeft) return "queue_forecast";
    return undefined;
  };

  const refuse = (reason: ShedReason): { readonly refused: ShedReason } => {
    refused[reason] += 1;
    lastRefusalAt = now();
    return { refused: reason };
  };
  const grant = (finishes = false): Admission => {
    const startedAt = now();
    if (!finishes && options.enabled) drain.admitted();
    if (idleSince !== undefined && startedAt - idleSince >= IDLE_RESTART_MS) limit.restart();
    idleSince = undefined;
    const inFlightAtStart = ++inFlight;
    admitted += 1;
    let released = false;
    return {
      permit: {
        release(outcome) {
          if (released) return;
          released = true;
          inFlight -= 1;
          const at = now();
          if (inFlight === 0) idleSince = at;
          const heldMs = at - startedAt;
          if (!finishes) serviceMs = serviceMs === 0 ? heldMs : serviceMs + SERVICE_SMOOTHING * (heldMs - serviceMs);
          if (options.enabled && outcome?.pastDeadline) limit.drop();
          else if (options.enabled) limit.sample(heldMs, inFlightAtStart);
          admitWaiting();
        },
      },
    };
  };

  const waitingAtMost = (ms: number) => {
    const until = now() + ms;
    return () => until - now();
  };

  // A waiter found past its deadline is refused without taking a place, so the next one gets it.
  const admitWaiting = () => {
    while (queue.length > 0 && inFlight < limit.value) queue.shift()?.grant();
  };

  const wait = (signal: AbortSignal, msLeft: () => number) =>
    new Promise<Admission>((resolve) => {
      const leave = (outcome: () => Admission, withPlace: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        if (withPlace) drain.placeGiven();
        if (queue.length === 0) drain.emptied();
        resolve(outcome());
      };
      // A caller whose deadline passed while it waited has left: its call is not started.
      const onAbort = () => leave(() => refuse("deadline"), false);
      const timer = setTimeout(onAbort, Math.min(Math.max(0, msLeft()), MAX_TIMER_MS));
      // A place passed straight on by a waiter past its deadline is not a place the queue drained by.
      const waiter: Waiter = {
        grant: () => (msLeft() <= 0 ? leave(() => refuse("deadline"), false) : leave(() => grant(), true)),
      };
      signal.addEventListener("abort", onAbort, { once: true });
      drain.joined(queue.length === 0);
      queue.push(waiter);
    });

  return {
    acquire(request) {
      if (!options.enabled) return Promise.resolve(grant());
      const msLeft = request.msLeft ?? waitingAtMost(options.queueWaitMs);
      if (request.signal.aborted || msLeft() <= 0) return Promise.resolve(refuse("deadline"));
      if (request.finishes) return Promise.resolve(grant(true));
      drain.arrived();
      if (options.pressure?.() !== undefined) return Promise.resolve(refuse("pressure"));
      if (inFlight < limit.value && queue.length === 0) return Promise.resolve(grant());
      const noPlace = queueRefusal(msLeft());
      if (noPlace !== undefined) return Promise.resolve(refuse(noPlace));
      return wait(request.signal, msLeft);
    },
    refuseEarly() {
      if (!options.enabled) return undefined;
      const pressed = options.pressure?.() !== undefined;
      const noPlace = pressed ? "pressure" : inFlight < limit.value ? undefined : queueRefusal(undefined);
      if (noPlace === undefined) return undefined;
      // Refused here, the call never reaches acquire: it arrived all the same.
      drain.arrived();
      return refuse(noPlace).refused;
    },
    shedding() {
      return options.pressure?.() !== undefined || now() - lastRefusalAt < holdMs;
    },
    stats() {
      return { limit: limit.value, inFlight, queued: queue.length, admitted, refused: { ...refused } };
    },
  };
}

// The process's own pressure, sampled every interval as @fastify/under-pressure
// does, but read by the admission control so that every protocol (including
// gRPC served straight from the h2c stream, which Fastify's hooks never see)
// is refused the same way.

export interface ProcessPressureOptions {
  /** Mean event-loop delay over an interval above which new work is refused; 0: not checked. */
  readonly maxEventLoopDelayMs: number;
  /** V8 heap in use above which new work is refused; 0: 90 % of V8's heap limit. */
  readonly maxHeapUsedBytes: number;
  readonly sampleIntervalMs?: number;
}

export interface ProcessPressure {
  /** Why no new work should start now, or undefined. */
  reason(): string | undefined;
  stop(): void;
}

const RESOLUTION_MS = 10;

export function watchProcessPressure(options: ProcessPressureOptions): ProcessPressure {
  const maxHeapUsed = options.maxHeapUsedBytes || 0.9 * getHeapStatistics().heap_size_limit;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let current: string | undefined;
  const timer = setInterval(() => {
    const delayMs = Math.max(0, delay.mean / 1e6 - RESOLUTION_MS);
    delay.reset();
    const heapUsed = process.memoryUsage().heapUsed;
    if (options.maxEventLoopDelayMs > 0 && delayMs > options.maxEventLoopDelayMs) current = "event_loop_delay";
    else if (heapUsed > maxHeapUsed) current = "heap_used";
    else current = undefined;
  }, options.sampleIntervalMs ?? 500);
  timer.unref();
  return {
    reason: () => current,
    stop() {
      clearInterval(timer);
      delay.disable();
    },
  };
}
