import { type ConcurrencyLimitOptions, createConcurrencyLimit } from "./concurrency-limit.ts";

// Admission control, one per instance: at most `limit` calls in flight, a
// short bounded queue behind them, and a refusal at once for the rest. The
// limit follows measured latency (concurrency-limit.ts); the process's own
// pressure (event-loop delay, memory) refuses new work too. A limit learnt
// in a burst may sit at its floor; once the instance has had nothing in
// flight for IDLE_RESTART_MS it starts again from its initial value, so the
// next burst at a quiet instance is not refused for the last one's sake.
// A call that would wait in the queue longer than it may is refused at once
// ("queue_forecast"; docs/operations.md, Overload).

export const IDLE_RESTART_MS = 1000;
/** Weight of each new interval between places given to queued calls (a wait that ran out counts as one). */
const DRAIN_SMOOTHING = 0.2;

export type ShedReason = "limit" | "queue_forecast" | "queue_timeout" | "pressure" | "deadline";

export interface Permit {
  /** Ends the call's hold on the limit; its latency is a sample of the limit, a call past its deadline a drop. */
  release(outcome?: { readonly pastDeadline: boolean }): void;
}

export type Admission = { readonly permit: Permit } | { readonly refused: ShedReason };

export interface AdmissionStats {
  readonly limit: number;
  readonly inFlight: number;
  readonly queued: number;
  readonly admitted: number;
  readonly refused: Readonly<Record<ShedReason, number>>;
}

export interface AdmissionOptions {
  /** Off: every call is admitted (for comparisons); calls are still counted. */
  readonly enabled: boolean;
  readonly limit: ConcurrencyLimitOptions;
  readonly queueSize: number;
  readonly queueWaitMs: number;
  /** How long after the last refusal the instance still reports itself shedding. */
  readonly sheddingHoldMs?: number;
  /** Monotonic milliseconds; injectable so tests can move time. */
  readonly now?: () => number;
  /** Why the process should take no new work now, if it should not. */
  readonly pressure?: () => string | undefined;
  /** Off: every call that finds a place in the queue waits in it (for comparisons). */
  readonly forecastQueueWait?: boolean;
}

export interface AdmissionControl {
  /**
   * Waits in the queue at most `queueWaitMs`, and not past `signal`; a call
   * found `expired` when its turn comes is refused rather than started. A call
   * that `finishes` work let in earlier (an end) is let in at once, over the
   * limit if need be: refusing it would waste the work already done.
   */
  acquire(signal: AbortSignal, expired?: () => boolean, finishes?: boolean): Promise<Admission>;
  /**
   * The refusal acquire would give at once (pressure, or the limit and the
   * queue both full), counted as such; undefined when a call may try. Lets a
   * host refuse before it reads and decodes the request.
   */
  refuseEarly(): ShedReason | undefined;
  /** Refused calls recently, or under pressure now: what health reports as degraded. */
  shedding(): boolean;
  stats(): AdmissionStats;
}

interface Waiter {
  readonly grant: () => void;
}

export function createAdmissionControl(options: AdmissionOptions): AdmissionControl {
  const now = options.now ?? (() => performance.now());
  const holdMs = options.sheddingHoldMs ?? 2000;
  const limit = createConcurrencyLimit(options.limit);
  const queue: Waiter[] = [];
  const refused: Record<ShedReason, number> = {
    limit: 0,
    queue_forecast: 0,
    queue_timeout: 0,
    pressure: 0,
    deadline: 0,
  };
  let inFlight = 0;
  let admitted = 0;
  let lastRefusalAt = Number.NEGATIVE_INFINITY;
  /** Since when nothing has been in flight; undefined while something is. */
  let idleSince: number | undefined = now();
  /** Smoothed milliseconds between places given to queued calls; undefined: nothing learnt (lately). */
  let drainIntervalMs: number | undefined;
  /** Since the last place given to a queued call, or since the queue formed; undefined while it is empty. */
  let placeClockFrom: number | undefined;
  let queueEmptySince = now();

  const learnInterval = (interval: number) => {
    const ms = Math.min(interval, options.queueWaitMs);
    drainIntervalMs = drainIntervalMs === undefined ? ms : drainIntervalMs + DRAIN_SMOOTHING * (ms - drainIntervalMs);
  };
  /** A queued call leaves: with a place, after its whole wait, or because its caller left. */
  const noteLeaving = (how: "place" | "wait_ran_out" | "left") => {
    const at = now();
    if (how === "place" && placeClockFrom !== undefined) {
      learnInterval(at - placeClockFrom);
      placeClockFrom = at;
    }
    // The queue waited a whole wait for no place; the clock runs on to the next place.
    if (how === "wait_ran_out") learnInterval(options.queueWaitMs);
    if (queue.length === 0) {
      placeClockFrom = undefined;
      queueEmptySince = at;
    }
  };
  const noteJoining = () => {
    if (queue.length > 0) return;
    const at = now();
    // What was learnt in an earlier burst says nothing about this one.
    if (at - queueEmptySince >= IDLE_RESTART_MS) drainIntervalMs = undefined;
    placeClockFrom = at;
  };
  /** A call that would be `position`th in the queue would wait longer than the queue lets it. */
  const wouldOutwait = (position: number) => {
    if (options.forecastQueueWait === false) return false;
    // A queue that has waited long for its next place drains at most that fast.
    const waitedMs = placeClockFrom === undefined ? 0 : now() - placeClockFrom;
    const intervalMs = Math.max(drainIntervalMs ?? 0, waitedMs);
    return position * intervalMs > options.queueWaitMs;
  };
  /** Why a call finding the limit full may not join the queue, if it may not. */
  const queueRefusal = (): ShedReason | undefined => {
    if (queue.length >= options.queueSize) return "limit";
    if (wouldOutwait(queue.length + 1)) return "queue_forecast";
    return undefined;
  };

  const refuse = (reason: ShedReason): { readonly refused: ShedReason } => {
    refused[reason] += 1;
    lastRefusalAt = now();
    return { refused: reason };
  };
  const grant = (): Admission => {
    const startedAt = now();
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
          if (inFlight === 0) idleSince = now();
          if (options.enabled && outcome?.pastDeadline) limit.drop();
          else if (options.enabled) limit.sample(now() - startedAt, inFlightAtStart);
          admitWaiting();
        },
      },
    };
  };

  // A waiter found expired is refused without taking a place, so the next one gets it.
  const admitWaiting = () => {
    while (queue.length > 0 && inFlight < limit.value) queue.shift()?.grant();
  };

  return {
    acquire(signal, expired = () => false, finishes = false) {
      if (!options.enabled) return Promise.resolve(grant());
      if (signal.aborted || expired()) return Promise.resolve(refuse("deadline"));
      if (finishes) return Promise.resolve(grant());
      if (options.pressure?.() !== undefined) return Promise.resolve(refuse("pressure"));
      if (inFlight < limit.value && queue.length === 0) return Promise.resolve(grant());
      const noPlace = queueRefusal();
      if (noPlace !== undefined) return Promise.resolve(refuse(noPlace));
      return new Promise<Admission>((resolve) => {
        const leave = (outcome: () => Admission, how: "place" | "wait_ran_out" | "left") => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          noteLeaving(how);
          resolve(outcome());
        };
        // A caller whose deadline passed while it waited has left: its call is not started.
        const onAbort = () => leave(() => refuse("deadline"), "left");
        const timer = setTimeout(() => leave(() => refuse("queue_timeout"), "wait_ran_out"), options.queueWaitMs);
        const waiter: Waiter = { grant: () => leave(() => (expired() ? refuse("deadline") : grant()), "place") };
        signal.addEventListener("abort", onAbort, { once: true });
        noteJoining();
        queue.push(waiter);
      });
    },
    refuseEarly() {
      if (!options.enabled) return undefined;
      if (options.pressure?.() !== undefined) return refuse("pressure").refused;
      if (inFlight < limit.value) return undefined;
      const noPlace = queueRefusal();
      return noPlace === undefined ? undefined : refuse(noPlace).refused;
    },
    shedding() {
      return options.pressure?.() !== undefined || now() - lastRefusalAt < holdMs;
    },
    stats() {
      return { limit: limit.value, inFlight, queued: queue.length, admitted, refused: { ...refused } };
    },
  };
}
