import type { AdmissionSamples } from "../report/results.ts";

// The server's admission gauges (/metrics), read every quarter second during a
// burst: where the limit settled, how full the limit and the queue were, and
// why calls were refused (at once past a full queue, or after waiting in it).

const INTERVAL_MS = 250;
const GAUGES = ["admission_limit", "admission_in_flight", "admission_queued"] as const;
/** prom-client's event-loop delay over the interval since the last scrape; NaN where a server has none. */
const LOOP_DELAY = "nodejs_eventloop_lag_p99_seconds";
const REASONS = ["limit", "queue_forecast", "pressure", "deadline"] as const;

type Sample = Record<(typeof GAUGES)[number] | typeof LOOP_DELAY, number> & {
  readonly refused: Record<string, number>;
};

/** Starts sampling; the function it returns stops and summarises (undefined when no scrape answered). */
export function sampleAdmission(baseUrl: string): () => Promise<AdmissionSamples | undefined> {
  const seen: Sample[] = [];
  let pending: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    pending = scrape(baseUrl).then((values) => {
      if (values !== undefined) seen.push(values);
    });
  }, INTERVAL_MS);
  return async () => {
    clearInterval(timer);
    await pending;
    if (seen.length === 0) return undefined;
    const limits = seen.map((s) => s.admission_limit);
    return {
      samples: seen.length,
      limitMin: Math.min(...limits),
      limitMean: limits.reduce((sum, v) => sum + v, 0) / limits.length,
      limitMax: Math.max(...limits),
      inFlightMax: Math.max(...seen.map((s) => s.admission_in_flight)),
      queuedMax: Math.max(...seen.map((s) => s.admission_queued)),
      loopDelayP99MaxMs: 1000 * Math.max(...seen.map((s) => s[LOOP_DELAY])),
      refusedByReason: Object.fromEntries(
        REASONS.map((reason) => [reason, (seen.at(-1)?.refused[reason] ?? 0) - (seen[0]?.refused[reason] ?? 0)]),
      ),
    };
  };
}

async function scrape(baseUrl: string): Promise<Sample | undefined> {
  try {
    const text = await (await fetch(new URL("/metrics", baseUrl), { signal: AbortSignal.timeout(1000) })).text();
    const values = { refused: {} } as Sample;
    for (const name of GAUGES) {
      const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
      if (match === null) return undefined;
      values[name] = Number(match[1]);
    }
    values[LOOP_DELAY] = Number(new RegExp(`^${LOOP_DELAY} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
    for (const reason of REASONS) {
      const match = new RegExp(`^admission_refusals_total\\{reason="${reason}"\\} (\\S+)$`, "m").exec(text);
      values.refused[reason] = match === null ? 0 : Number(match[1]);
    }
    return values;
  } catch {
    return undefined;
  }
}
