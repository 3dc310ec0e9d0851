import { acknowledgedWritesCheck } from "./acknowledged-writes.ts";
import type { Analysis } from "./analysis.ts";
import { phaseOf } from "./analysis.ts";
import { isOverloaded } from "./loop-result.ts";
import type { OverloadResult } from "./overload-phases.ts";
import type { BenchResults } from "./results-file.ts";
import { grouped } from "./table.ts";

// The targets, each with what was measured and whether it was met. A target
// whose phase did not run is reported as not measured, never as met.

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  /** undefined: not measured in this run. */
  readonly met: boolean | undefined;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

export function checkTargets(results: BenchResults, analysis: Analysis): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const rate = results.options.rate;
  for (const key of ["open.rest", "open.grpc"] as const) {
    const phase = phaseOf(results, key);
    const via = key === "open.rest" ? "REST" : "gRPC";
    const start = phase?.loop.start.latency.p99Ms;
    const end = phase?.loop.end.latency.p99Ms;
    checks.push(check(`${via} start p99 ≤ 5 ms at ${rate} calls/s`, start, (v) => v <= 5, ms));
    checks.push(check(`${via} end p99 ≤ 8 ms at ${rate} calls/s`, end, (v) => v <= 8, ms));
  }
  for (const ratio of analysis.ceilingRatios.filter((r) => r.text.includes("DB ceiling"))) {
    checks.push({
      target: "closed-loop calls/s ≥ 70 % of the DB ceiling",
      measured: ratio.text,
      met: ratio.value >= 70,
    });
  }
  if (!analysis.ceilingRatios.some((r) => r.text.includes("DB ceiling"))) {
    checks.push({ target: "closed-loop calls/s ≥ 70 % of the DB ceiling", measured: "not measured", met: undefined });
  }
  const restOpen = phaseOf(results, "open.rest")?.loop;
  const grpcOpen = phaseOf(results, "open.grpc")?.loop;
  checks.push(
    restOpen === undefined || grpcOpen === undefined
      ? { target: "gRPC start p50 ≤ REST start p50", measured: "not measured", met: undefined }
      : comparable(
          {
            target: "gRPC start p50 ≤ REST start p50",
            measured: `${ms(grpcOpen.start.latency.p50Ms)} vs ${ms(restOpen.start.latency.p50Ms)}`,
            met: grpcOpen.start.latency.p50Ms <= restOpen.start.latency.p50Ms,
          },
          isOverloaded(restOpen) || isOverloaded(grpcOpen),
        ),
  );
  if (analysis.scale === undefined) {
    checks.push({
      target: "p99 at the larger population ≤ 1.5 × p99 at the smaller",
      measured: "not measured (--scale-to)",
      met: undefined,
    });
  } else {
    const { from, to } = analysis.scale;
    for (const row of analysis.scale.rows) {
      checks.push(
        comparable(
          {
            target: `${row.via} ${row.operation} p99 at ${grouped(to)} ≤ 1.5 × at ${grouped(from)} customers`,
            measured: `${row.ratio.toFixed(2)} × (${ms(row.p99After)} vs ${ms(row.p99Before)})`,
            met: row.ratio <= 1.5,
          },
          row.overloaded,
        ),
      );
    }
  }
  checks.push(
    check(
      "server RSS ≤ 200 MB under load",
      analysis.memory.maxRssMb,
      (v) => v <= 200,
      (v) => `${v.toFixed(0)} MB`,
    ),
  );
  const soak = analysis.memory.soak;
  checks.push(
    soak === undefined
      ? { target: "RSS growth ≤ 10 % over a 5-minute soak", measured: "not measured (--soak 300)", met: undefined }
      : {
          target: "RSS growth ≤ 10 % over a 5-minute soak",
          measured: `${soak.growthPercent.toFixed(1)} % over ${soak.seconds} s (${soak.startMb.toFixed(0)} → ${soak.endMb.toFixed(0)} MB)`,
          met: soak.seconds >= 300 ? soak.growthPercent <= 10 : undefined,
        },
  );
  // The bursts are meant to be refused in part; their own targets follow.
  const failed = results.phases
    .filter((phase) => !phase.key.startsWith("burst."))
    .reduce((sum, phase) => sum + phase.loop.start.errors + phase.loop.end.errors, 0);
  checks.push({
    target: "no failed request in any phase below capacity",
    measured: `${failed} failed`,
    met: failed === 0,
  });
  checks.push(...overloadTargets(results.overload ?? []));
  return checks;
}

/** Issue 18's targets for the bursts at 1.5 × C and 3 × C. */
function overloadTargets(runs: readonly OverloadResult[]): TargetCheck[] {
  if (runs.length === 0) {
    return [{ target: "goodput, refusals and recovery past capacity", measured: "not measured", met: undefined }];
  }
  const checks: TargetCheck[] = [];
  for (const run of runs) {
    const via = `${run.via} (limiter ${run.limiter})`;
    for (const burst of run.bursts) {
      const at = `at ${burst.factor} × C`;
      const ratio = (burst.goodputCallsPerSecond / run.referenceGoodputCallsPerSecond) * 100;
      checks.push(
        check(
          `${via} goodput ${at} ≥ 90 % of goodput at 0.8 × C`,
          ratio,
          (v) => v >= 90,
          (v) =>
            `${v.toFixed(0)} % (${burst.goodputCallsPerSecond.toFixed(1)} vs ${run.referenceGoodputCallsPerSecond.toFixed(1)} calls/s)`,
        ),
      );
      checks.push(
        burst.refused === 0
          ? { target: `${via} refused starts ${at} answered with p99 ≤ 100 ms`, measured: "none refused", met: true }
          : check(
              `${via} refused starts ${at} answered with p99 ≤ 100 ms`,
              burst.refusalP99Ms,
              (v) => v <= 100,
              (v) => `${ms(v)} over ${burst.refused} refused`,
            ),
      );
      checks.push(check(`${via} accepted starts ${at} with p99 ≤ 1 s`, burst.acceptedStartP99Ms, (v) => v <= 1000, ms));
      checks.push({
        target: `${via} recovery after ${burst.factor} × C ≤ 5 s`,
        measured:
          burst.recoverySeconds === undefined
            ? `not within ${run.recoveryWindowSeconds} s`
            : `${burst.recoverySeconds} s (start p99 back within 20 % of ${ms(run.baselineStartP99Ms)})`,
        met: burst.recoverySeconds !== undefined && burst.recoverySeconds <= 5,
      });
      checks.push({
        target: `${via} no start ${at} failed other than refused`,
        measured: `${burst.failedOtherwise} failed otherwise`,
        met: burst.failedOtherwise === 0,
      });
    }
  }
  checks.push(acknowledgedWritesCheck(runs));
  return checks;
}

/** A comparison of two latencies means nothing when either was a backlog. */
function comparable(check: TargetCheck, overloaded: boolean): TargetCheck {
  return overloaded ? { ...check, measured: `${check.measured}; overloaded, not comparable`, met: undefined } : check;
}

function check(
  target: string,
  value: number | undefined,
  ok: (value: number) => boolean,
  format: (value: number) => string,
): TargetCheck {
  if (value === undefined || Number.isNaN(value)) return { target, measured: "not measured", met: undefined };
  return { target, measured: format(value), met: ok(value) };
}
