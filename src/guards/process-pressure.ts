import { monitorEventLoopDelay } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";

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
