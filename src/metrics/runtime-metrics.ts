import { monitorEventLoopDelay } from "node:perf_hooks";
import { collectDefaultMetrics, Gauge, type Registry } from "prom-client";

// The process's own metrics: prom-client's defaults, less the ones a scraper
// cannot read as they are, and the event-loop delay as OpenTelemetry's Node.js
// runtime metrics name it (nodejs.eventloop.delay.*, in seconds).
//
// Left out of prom-client's defaults: nodejs_active_{handles,requests,resources}_total
// (gauges with a counter's suffix, which `promtool check metrics` rejects; the
// same figures, by type, are in nodejs_active_{handles,requests,resources}), and
// nodejs_eventloop_lag_* (reset at every scrape, so a scrape right after another
// reads NaN and a minimum of 9.2e9 s).

const DROPPED = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
  ...["min", "max", "mean", "stddev", "p50", "p90", "p99"].map((stat) => `nodejs_eventloop_lag_${stat}_seconds`),
];

/** How long each reported window of event-loop delay is: a scrape reads the last complete one. */
const WINDOW_MS = 5_000;
const RESOLUTION_MS = 10;

type Histogram = ReturnType<typeof monitorEventLoopDelay>;
const STATS: Record<string, (histogram: Histogram) => number> = {
  min: (h) => h.min,
  max: (h) => h.max,
  mean: (h) => h.mean,
  stddev: (h) => h.stddev,
  p50: (h) => h.percentile(50),
  p90: (h) => h.percentile(90),
  p99: (h) => h.percentile(99),
};

/** Registers them; the function returned stops the delay's sampling (the server's close calls it). */
export function registerRuntimeMetrics(registry: Registry): () => void {
  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED) registry.removeSingleMetric(name);

  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let lastWindow: Record<string, number> | undefined;
  const windows = setInterval(() => {
    // A window without a sample (the loop blocked throughout) keeps the previous one rather than NaN.
    if (delay.count > 0) {
      lastWindow = Object.fromEntries(Object.entries(STATS).map(([stat, read]) => [stat, read(delay) / 1e9]));
    }
    delay.reset();
  }, WINDOW_MS);
  windows.unref();

  for (const stat of Object.keys(STATS)) {
    new Gauge({
      name: `nodejs_eventloop_delay_${stat}_seconds`,
      help: `Event-loop delay ${stat} over the last ${WINDOW_MS / 1000} s window`,
      registers: [registry],
      collect() {
        // Until the first window closes, what the running one has seen so far.
        if (lastWindow !== undefined) this.set(lastWindow[stat]!);
        else if (delay.count > 0) this.set(STATS[stat]!(delay) / 1e9);
      },
    });
  }
  return () => {
    clearInterval(windows);
    delay.disable();
  };
}
