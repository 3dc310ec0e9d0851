import { type CallDriver, failureLabel } from "../load/call-driver.ts";
import { runClosedLoop } from "../load/closed-loop.ts";
import { isRefusal } from "../load/operation-stats.ts";
import type { Workload } from "../load/workload.ts";
import type { WithinCapacityResult } from "../report/results.ts";
import { progress } from "./phase.ts";

// Load nothing should be refused under: a closed loop of 64 callers (each waits
// for its answer before the next call, so it cannot overload anything: the
// service only has to answer in turn), and 200 starts sent at once to an idle
// instance (at the measured capacity all 200 finish in about half of the 1 s
// start budget). A refusal here is a caller left without context for nothing.

const CLOSED_LOOP_CALLERS = 64;
const IDLE_BURST_STARTS = 200;
/** Longer than the admission control's idle restart (1 s): the instance is idle when the burst comes. */
const IDLE_BEFORE_BURST_MS = 1500;

export async function refusalsWithinCapacity(
  driver: CallDriver,
  workload: Workload,
  durationSeconds: number,
): Promise<WithinCapacityResult> {
  const closed = await runClosedLoop(driver, workload, {
    concurrency: CLOSED_LOOP_CALLERS,
    durationSeconds,
    warmupSeconds: 0,
  });
  await new Promise((resolve) => setTimeout(resolve, IDLE_BEFORE_BURST_MS));
  const calls = Array.from({ length: IDLE_BURST_STARTS }, () => workload.next());
  const sentAt = performance.now();
  const starts = await Promise.allSettled(calls.map((call) => driver.start(call)));
  const burstMs = performance.now() - sentAt;
  // Every started call is ended, as a caller would; an end refused or failed loses the call's context too.
  const ends = await Promise.allSettled(
    starts.map((start, i) => (start.status === "fulfilled" ? driver.end(calls[i], start.value) : undefined)),
  );
  const failed = [...starts, ...ends].flatMap((outcome) =>
    outcome.status === "rejected" ? [failureLabel(outcome.reason)] : [],
  );
  const result: WithinCapacityResult = {
    closedLoopCallers: CLOSED_LOOP_CALLERS,
    closedLoopCallsPerSecond: closed.callsPerSecond,
    closedLoopRefused: closed.start.refused + closed.end.refused,
    closedLoopFailedOtherwise: closed.start.errors + closed.end.errors - closed.start.refused - closed.end.refused,
    idleBurstStarts: IDLE_BURST_STARTS,
    idleBurstRefused: failed.filter(isRefusal).length,
    idleBurstFailedOtherwise: failed.filter((label) => !isRefusal(label)).length,
    idleBurstSeconds: burstMs / 1000,
  };
  progress(
    `  ${driver.name}: ${CLOSED_LOOP_CALLERS}-caller closed loop ${closed.callsPerSecond.toFixed(1)} calls/s, ` +
      `${result.closedLoopRefused} refused; ${IDLE_BURST_STARTS} starts at once at an idle instance: ` +
      `${result.idleBurstRefused} refused, answered within ${result.idleBurstSeconds.toFixed(2)} s`,
  );
  return result;
}
