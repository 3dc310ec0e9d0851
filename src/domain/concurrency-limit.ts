// A limit on calls in flight that follows measured latency, after the
// Gradient2 limit of Netflix's concurrency-limits: while the recent latency
// stays near the long-run one the limit grows; when calls queue up inside
// the service (in the database pool, on the event loop) the recent latency
// rises above it and the limit shrinks in proportion. A latency ceiling
// bounds what the trend alone lets drift up: past it the limit shrinks
// whatever the long-run latency says. Pure: samples in, limit out.

export interface ConcurrencyLimitOptions {
  readonly initial: number;
  readonly min: number;
  readonly max: number;
  /** How much slower than the long-run latency the recent one may be before the limit shrinks. */
  readonly tolerance?: number;
  /** Samples the long-run latency averages over. */
  readonly longWindow?: number;
  /** Samples the recent latency averages over. */
  readonly shortWindow?: number;
  /** Weight of each new limit against the previous one. */
  readonly smoothing?: number;
  /**
   * Recent latency above which the limit shrinks in proportion and stops
   * growing, whatever the trend; 0: none. Under a long overload the long-run
   * latency follows the recent one up, and Gradient2 alone keeps growing.
   */
  readonly maxLatencyMs?: number;
}

export interface ConcurrencyLimit {
  readonly value: number;
  /** One finished call: its latency and how many calls were in flight when it began. */
  sample(latencyMs: number, inFlight: number): void;
  /** A call that ran out of time: too many were let in, whatever the latency trend says. */
  drop(): void;
  /** After a pause with nothing in flight: what was learnt under load is stale; start again from the initial limit. */
  restart(): void;
}

export function createConcurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const { min, max } = options;
  const tolerance = options.tolerance ?? 1.5;
  const longAlpha = 2 / ((options.longWindow ?? 500) + 1);
  const shortAlpha = 2 / ((options.shortWindow ?? 10) + 1);
  const smoothing = options.smoothing ?? 0.2;
  const maxLatencyMs = options.maxLatencyMs ?? 0;
  let limit = clamp(options.initial, min, max);
  let longMs = 0;
  let shortMs = 0;
  return {
    get value() {
      return Math.floor(limit);
    },
    sample(latencyMs, inFlight) {
      const rtt = Math.max(latencyMs, 0.01);
      shortMs = shortMs === 0 ? rtt : shortMs + shortAlpha * (rtt - shortMs);
      longMs = longMs === 0 ? rtt : longMs + longAlpha * (rtt - longMs);
      // After a long overload the long-run average has drifted up; let it come back down.
      if (longMs / shortMs > 2) longMs *= 0.95;
      // Calls the service is not offered tell nothing about a higher limit.
      if (inFlight < limit / 2) return;
      const tooSlow = maxLatencyMs > 0 && shortMs > maxLatencyMs;
      const trend = (tolerance * longMs) / shortMs;
      const gradient = clamp(tooSlow ? Math.min(trend, maxLatencyMs / shortMs) : trend, 0.5, 1);
      // The square root is the headroom above the latency-neutral limit (a small queue of its own).
      const next = limit * gradient + (tooSlow ? 0 : Math.sqrt(limit));
      limit = clamp(limit * (1 - smoothing) + next * smoothing, min, max);
    },
    drop() {
      // Gradient2 ignores drops; under sustained overload its long-run latency drifts up with the queue.
      limit = clamp(limit * 0.9, min, max);
    },
    restart() {
      limit = Math.max(limit, clamp(options.initial, min, max));
      longMs = 0;
      shortMs = 0;
    },
  };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
