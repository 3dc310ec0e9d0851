// What the admission queue has shown lately: how fast it hands out places,
// since when it has stood, and whether calls arrive faster than they are let
// in. Pure bookkeeping with an injected clock; the admission control
// (src/guards/admission.ts) decides with it.

/** Time constant of the arrival and admission rates. */
const RATE_WINDOW_MS = 1000;
/**
 * The admission rate counts as the queue's drain rate once it has seen this
 * many calls over this long; before that, the time a call takes over the limit.
 */
const DRAIN_MIN_CALLS = 5;
const DRAIN_MIN_MS = 50;
/**
 * Arrivals this much above admissions, once a queue has stood for a burst's
 * length, mean overload. A closed loop of callers (each calls again once
 * answered) then arrives exactly as fast as it is let in, however long its
 * queue; an open stream of calls beyond capacity arrives faster. The burst
 * that formed the queue is not counted: a closed loop starts with one.
 */
const OVERLOAD_RATIO = 1.25;
/** Calls more than the ratio allows before it counts: a few calls are no rate. */
const OVERLOAD_MIN_EXCESS = 4;

export interface QueueDrainOptions {
  /** How long a queue may stand before it counts as overload rather than a burst. */
  readonly burstMs: number;
  /** After this long empty, what the queue learnt says nothing about its next burst. */
  readonly forgetAfterMs: number;
}

export interface QueueDrain {
  /**
   * How long a call joining at `position` (1: the head) would wait for its place, given how long an
   * admitted call takes (`serviceMs`; 0: none has finished yet) and how many may be in flight: a place
   * as often as calls have been let in over the last second or so (until that is known, every
   * serviceMs / limit; 0 while nothing at all is known), after however long the queue has been stuck.
   * A rate rather than the intervals between places: when the limit grows, many places are given at
   * once, and intervals of nothing would make the queue look far faster than it drains.
   */
  forecastWaitMs(position: number, serviceMs: number, limit: number): number;
  /**
   * Whether calls are coming faster than they can be let in: the queue has
   * stood for at least `burstMs` (longer than a burst takes to arrive; gaps
   * shorter than that with the queue empty do not end it), and since then
   * calls have arrived markedly faster than they were admitted.
   */
  overloaded(): boolean;
  /** A call that may have to wait arrives (admitted at once, queued or refused). */
  arrived(): void;
  /** Such a call is let in, at once or from the queue. */
  admitted(): void;
  /** A call joins; `wasEmpty`: it is the only one. */
  joined(wasEmpty: boolean): void;
  /** A queued call got its place. */
  placeGiven(): void;
  /** The last queued call left (with a place or without). */
  emptied(): void;
}

export function createQueueDrain({ burstMs, forgetAfterMs }: QueueDrainOptions, now: () => number): QueueDrain {
  /** Every call let in, since the drain was last forgotten: how fast the queue drains. */
  const letIn = createDecayingCount(RATE_WINDOW_MS, now);
  /** Since the last place given, or since the queue formed; undefined while it is empty. */
  let placeClockFrom: number | undefined;
  let emptySince = now();
  /** When the queue's current episode began: it formed after being empty for at least burstMs. */
  let standingSince: number | undefined;
  const arrivals = createDecayingCount(RATE_WINDOW_MS, now);
  const admissions = createDecayingCount(RATE_WINDOW_MS, now);
  /** The queue has stood for a burst's length: its episode is more than the burst that formed it. */
  const standing = () =>
    standingSince !== undefined && placeClockFrom !== undefined && now() - standingSince >= burstMs;

  return {
    forecastWaitMs(position, serviceMs, limit) {
      const waitedMs = placeClockFrom === undefined ? 0 : now() - placeClockFrom;
      // No place for longer than an admitted call takes: the calls in flight are stuck (a locked row, a
      // database that stopped answering), and every call in line waits at least that much longer. Calls
      // let in together all finish about serviceMs later, so a wait shorter than that says nothing.
      const stalledMs = serviceMs > 0 && waitedMs > serviceMs ? waitedMs - serviceMs : 0;
      const perMs = letIn.ratePerMs(DRAIN_MIN_CALLS, DRAIN_MIN_MS);
      const interval = perMs === undefined ? serviceMs / Math.max(1, limit) : 1 / perMs;
      return stalledMs + position * interval;
    },
    overloaded() {
      return standing() && arrivals.value() > OVERLOAD_RATIO * admissions.value() + OVERLOAD_MIN_EXCESS;
    },
    arrived() {
      if (standing()) arrivals.add();
    },
    admitted() {
      letIn.add();
      if (standing()) admissions.add();
    },
    joined(wasEmpty) {
      if (!wasEmpty) return;
      const at = now();
      const quietMs = at - emptySince;
      if (quietMs >= forgetAfterMs) letIn.clear();
      if (standingSince === undefined || quietMs >= burstMs) {
        standingSince = at;
        arrivals.clear();
        admissions.clear();
      }
      placeClockFrom = at;
    },
    placeGiven() {
      if (placeClockFrom !== undefined) placeClockFrom = now();
    },
    emptied() {
      placeClockFrom = undefined;
      emptySince = now();
    },
  };
}

/** A count of events whose weight halves every `tauMs` × ln 2: its value over tauMs is a recent rate. */
function createDecayingCount(tauMs: number, now: () => number) {
  let value = 0;
  let at = now();
  let since = at;
  /** Events counted since the last clear, undecayed: whether there are enough to speak of a rate. */
  let seen = 0;
  const decay = () => {
    const t = now();
    value *= Math.exp(-(t - at) / tauMs);
    at = t;
  };
  return {
    add() {
      decay();
      value += 1;
      seen += 1;
    },
    /**
     * Events per ms lately, once at least `minEvents` over `minMs` were counted. Corrected for a count
     * younger than its window: a count cleared 100 ms ago has had 100 ms to fill, not tauMs.
     */
    ratePerMs(minEvents: number, minMs: number): number | undefined {
      decay();
      const ageMs = at - since;
      if (seen < minEvents || ageMs < minMs) return undefined;
      return value / (tauMs * (1 - Math.exp(-ageMs / tauMs)));
    },
    value() {
      decay();
      return value;
    },
    clear() {
      value = 0;
      seen = 0;
      at = now();
      since = at;
    },
  };
}
