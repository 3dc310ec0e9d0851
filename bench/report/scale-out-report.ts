import { DISTURBED_ABOVE_PERCENT } from "../phases/resources.ts";
import type { BenchResults, ScaleOutRun } from "./results.ts";
import { fixed, formatTable } from "./table.ts";

// The report's lines on the two-instance phase: calls/s with one instance and
// with two, the CPU of every party, and what PostgreSQL's backends waited for.

export function formatScaleOut(results: Pick<BenchResults, "scaleOut" | "scaleOutSkipped" | "phases">): string[] {
  const scaleOut = results.scaleOut;
  if (scaleOut === undefined) {
    return results.scaleOutSkipped === undefined ? [] : ["", `Scale-out: skipped (${results.scaleOutSkipped})`];
  }
  const runs = [
    ["one instance", scaleOut.one],
    ["two instances", scaleOut.two],
  ] as const;
  const earlier = results.phases
    .filter((phase) => phase.key === "closed.rest" || phase.key === "closed.grpc")
    .map((phase) => `${phase.via} ${fixed(phase.loop.callsPerSecond, 1)}`);
  return [
    "",
    `Scale-out: one account on two instances against one (closed loop, ${scaleOut.concurrency} in flight in all, ` +
      `${scaleOut.via}, rate-limit windows in Redis at ${scaleOut.redis}; CPU in % of one core, lock waiters per sample)`,
    formatTable(
      [
        "run",
        "calls/s",
        "per instance",
        "errors",
        "server CPU",
        "PG CPU",
        "client CPU",
        "other CPU",
        "machine CPU",
        "server / PG ms per call",
        "lock waiters mean / max",
        "samples with a lock wait",
        "active backends",
      ],
      runs.map(([title, run]) => [
        title,
        fixed(run.callsPerSecond, 1),
        run.perInstance.map((loop) => fixed(loop.callsPerSecond, 1)).join(" + "),
        String(errorCount(run)),
        run.cpu.serversPercent.map((percent) => fixed(percent, 0)).join(" / "),
        fixed(run.cpu.postgresPercent, 0),
        fixed(run.cpu.clientPercent, 0),
        `${fixed(run.cpu.otherPercent, 0)}${run.cpu.otherPercent > DISTURBED_ABOVE_PERCENT ? " !" : ""}`,
        fixed(run.cpu.machinePercent, 0),
        `${fixed(run.cpuMsPerCall.servers)} / ${fixed(run.cpuMsPerCall.postgres)}`,
        `${fixed(run.lockWaits.lockWaitingMean)} / ${run.lockWaits.lockWaitingMax}`,
        `${fixed(run.lockWaits.samplesWithLockWaitPercent, 0)} %`,
        fixed(run.lockWaits.activeMean),
      ]),
      "lrrrrrrrrrrrr",
    ),
    ...(runs.some(([, run]) => run.cpu.otherPercent > DISTURBED_ABOVE_PERCENT)
      ? [`  ! other work on the machine took more than ${DISTURBED_ABOVE_PERCENT} % of a core: the ratio is disturbed`]
      : []),
    ...(runs.some(([, run]) => errorCount(run) > 0)
      ? ["  * calls failed (refusals are per instance): the ratio compares shed load, not capacity"]
      : []),
    `  two / one = ${fixed(scaleOut.ratio)} ×${runs.some(([, run]) => errorCount(run) > 0) ? " *" : ""}`,
    ...runs.map(([title, run]) => `  ${title}, active backends waiting for: ${waits(run)}`),
    ...runs.flatMap(([title, run]) => errorLines(title, run)),
    ...Object.entries(scaleOut.serverWarnings).map(
      ([message, n]) => `  server log at warn or above: ${n} × ${message}`,
    ),
    ...(earlier.length > 0
      ? [`  the one-instance closed loops earlier in this run: ${earlier.join(", ")} calls/s`]
      : []),
  ];
}

function errorCount(run: ScaleOutRun): number {
  return run.perInstance.reduce((sum, loop) => sum + loop.start.errors + loop.end.errors, 0);
}

function waits(run: ScaleOutRun): string {
  const entries = Object.entries(run.lockWaits.activeByWait).slice(0, 6);
  const sampled = `${run.lockWaits.samples} samples every ${run.lockWaits.intervalMs} ms`;
  const failed = run.lockWaits.error === undefined ? "" : `; sampling stopped: ${run.lockWaits.error}`;
  return `${entries.map(([label, n]) => `${label} ${fixed(n)}`).join(", ") || "nothing"} (${sampled}${failed})`;
}

function errorLines(title: string, run: ScaleOutRun): string[] {
  return run.perInstance.flatMap((loop, i) =>
    (["start", "end"] as const).flatMap((operation) =>
      Object.entries(loop[operation].errorsByKind).map(
        ([kind, count]) => `  ${title}, instance ${i + 1} ${operation}: ${count} × ${kind}`,
      ),
    ),
  );
}
