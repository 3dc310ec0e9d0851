import { type CallDriver, CLIENT_TIMEOUT } from "../load/call-driver.ts";
import { createLatencyRecorder } from "../load/histogram.ts";
import { runOpenLoop } from "../load/open-loop.ts";
import type { Workload } from "../load/workload.ts";
import type { BurstResult, OverloadResult, PhaseResult } from "../report/results.ts";
import type { Service } from "../service/service.ts";
import { createWriteLedger, recordWrites, type WriteLedger } from "./acknowledged-writes.ts";
import { sampleAdmission } from "./admission-sampler.ts";
import { measurePhase, progress } from "./phase.ts";
import { refusalsWithinCapacity } from "./within-capacity.ts";

// Bursts past capacity. C is the closed-loop calls/s of the same run over the
// same protocol; the service is offered 0.5 × C (the latency to recover to),
// 0.8 × C (the goodput to keep), then 1.5 × C and 3 × C, each burst followed
// at once by 0.5 × C again to time the recovery.

export const BURST_FACTORS = [1.5, 3] as const;
/** Recovered: the start p99 of the rest of the window within this factor of its value at 0.5 × C. */
const RECOVERED_WITHIN = 1.2;
/** The fewest seconds of calls a recovery is judged on: one second's p99 (70 starts at 0.5 × C) is its worst one. */
const JUDGED_OVER_BUCKETS = 2;
const BUCKET_MS = 1000;

export interface OverloadOptions {
  readonly capacityCallsPerSecond: number;
  readonly durationSeconds: number;
  readonly recoverySeconds: number;
  /** Unmeasured seconds at 0.5 × C first: the driver's connections and the server warm up outside the baseline. */
  readonly warmupSeconds: number;
  readonly limiter: "on" | "off";
}

export async function overloadPhases(
  service: Service,
  workload: Workload,
  key: "burst.rest" | "burst.rest-new" | "burst.grpc",
  plainDriver: CallDriver,
  options: OverloadOptions,
): Promise<{ result: OverloadResult; phases: PhaseResult[]; ledger: WriteLedger }> {
  const c = options.capacityCallsPerSecond;
  const ledger = createWriteLedger();
  const driver = recordWrites(plainDriver, ledger);
  const phases: PhaseResult[] = [];
  const measure = (factor: number, run: () => ReturnType<typeof runOpenLoop>) =>
    measurePhase(
      service.monitor,
      {
        key,
        title: `${factor} × C = ${Math.round(factor * c)} calls/s`,
        via: driver.name,
        customers: workload.population,
      },
      // No blocks per call here: reading them waits for PostgreSQL's counts to settle, which would shift the
      // recovery windows that follow each burst.
      run,
    ).then((phase) => {
      phases.push(phase);
      return phase;
    });
  const openLoop = (
    factor: number,
    durationSeconds = options.durationSeconds,
    onStart?: (at: number, ms: number | undefined) => void,
  ) => runOpenLoop(driver, workload, { callsPerSecond: Math.max(1, factor * c), durationSeconds, onStart });
  try {
    const withinCapacity = await refusalsWithinCapacity(plainDriver, workload, options.durationSeconds);
    if (options.warmupSeconds > 0) {
      await runOpenLoop(plainDriver, workload, {
        callsPerSecond: Math.max(1, 0.5 * c),
        durationSeconds: options.warmupSeconds,
      });
    }
    const baselineStarts: { at: number; ms: number | undefined }[] = [];
    const baselineFrom = performance.now();
    const baselineLoop = (
      await measure(0.5, () => openLoop(0.5, options.durationSeconds, (at, ms) => baselineStarts.push({ at, ms })))
    ).loop;
    const baseline = baselineLoop.start.latency.p99Ms;
    // The same seconds' p99 with no burst before them: how far one second strays by itself.
    progress(`  start p99 per second: ${formatP99s(recoveryOf(baselineStarts, baselineFrom, baseline).p99s)} ms`);
    const referenceLoop = (await measure(0.8, () => openLoop(0.8))).loop;
    const reference = referenceLoop.callsPerSecond;
    const refusedWithinCapacity = (baselineLoop.refusals?.count ?? 0) + (referenceLoop.refusals?.count ?? 0);
    const bursts: BurstResult[] = [];
    for (const factor of BURST_FACTORS) {
      const starts: { at: number; ms: number | undefined }[] = [];
      // The recovery load begins when the burst's timetable ends, while the burst's last calls drain.
      const recovery = sleep(options.durationSeconds * 1000).then(() => {
        const from = performance.now();
        return openLoop(0.5, options.recoverySeconds, (at, ms) => starts.push({ at, ms })).then(() => from);
      });
      const sampled = sampleAdmission(service.metricsUrl);
      const burst = (await measure(factor, () => openLoop(factor))).loop;
      const admission = await sampled();
      if (admission !== undefined) {
        progress(
          `  admission limit ${admission.limitMin}..${admission.limitMax} (mean ${admission.limitMean.toFixed(1)}), ` +
            `in flight ≤ ${admission.inFlightMax}, queued ≤ ${admission.queuedMax}, refused by reason ` +
            Object.entries(admission.refusedByReason)
              .map(([reason, n]) => `${reason} ${n}`)
              .join(", "),
        );
      }
      const recoveryFrom = await recovery;
      const recovered = recoveryOf(starts, recoveryFrom, baseline);
      progress(
        `  start p99 per second after the burst: ${formatP99s(recovered.p99s)} ms ` +
          `(recovered: ≤ ${(RECOVERED_WITHIN * baseline).toFixed(0)} ms)`,
      );
      bursts.push({
        factor,
        offeredCallsPerSecond: factor * c,
        goodputCallsPerSecond: burst.callsPerSecond,
        refused: burst.refusals?.count ?? 0,
        failedOtherwise: burst.start.errors - (burst.refusals?.count ?? 0),
        clientTimeouts: (burst.start.errorsByKind[CLIENT_TIMEOUT] ?? 0) + (burst.end.errorsByKind[CLIENT_TIMEOUT] ?? 0),
        refusalP99Ms: burst.refusals?.p99Ms ?? Number.NaN,
        refusalFromSendP99Ms: burst.refusalsFromSend?.p99Ms ?? Number.NaN,
        acceptedStartP99Ms: burst.start.latency.p99Ms,
        recoverySeconds: recovered.seconds,
        recoveryP99sMs: recovered.p99s,
        admission,
      });
    }
    return {
      result: {
        via: driver.name,
        limiter: options.limiter,
        capacityCallsPerSecond: c,
        baselineStartP99Ms: baseline,
        referenceGoodputCallsPerSecond: reference,
        recoveryWindowSeconds: options.recoverySeconds,
        refusedWithinCapacity,
        withinCapacity,
        bursts,
      },
      phases,
      ledger,
    };
  } finally {
    await driver.close();
  }
}

/**
 * The start of the first one-second bucket whose own start p99 and that of the
 * starts up to the end of the window (at least JUDGED_OVER_BUCKETS seconds of
 * them; a failed start counting as endless) are within RECOVERED_WITHIN ×
 * baseline, the latter the same statistic over as many calls as the
 * baseline's; and each second's own p99.
 */
export function recoveryOf(
  starts: readonly { at: number; ms: number | undefined }[],
  from: number,
  baselineP99Ms: number,
): { readonly seconds: number | undefined; readonly p99s: number[] } {
  const buckets: number[][] = [];
  for (const { at, ms } of starts) {
    const index = Math.max(0, Math.floor((at - from) / BUCKET_MS));
    buckets[index] ??= [];
    buckets[index].push(ms ?? Number.POSITIVE_INFINITY);
  }
  const p99Of = (values: readonly number[]) => {
    const recorder = createLatencyRecorder();
    for (const value of values) recorder.record(value);
    return recorder.summary().p99Ms;
  };
  const p99s = Array.from(buckets, (bucket) => (bucket === undefined ? Number.NaN : p99Of(bucket)));
  const bound = RECOVERED_WITHIN * baselineP99Ms;
  for (let i = 0; i + JUDGED_OVER_BUCKETS <= buckets.length; i++) {
    const rest = buckets.slice(i).flatMap((bucket) => bucket ?? []);
    // The second it is counted from must itself be back, not only carried by the good ones after it.
    if (p99s[i] <= bound && p99Of(rest) <= bound) {
      return { seconds: (i * BUCKET_MS) / 1000, p99s };
    }
  }
  return { seconds: undefined, p99s };
}

function formatP99s(p99s: readonly number[]): string {
  return p99s.map((p) => (Number.isFinite(p) ? p.toFixed(0) : "failed")).join(", ");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
