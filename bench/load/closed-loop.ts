import { type CallDriver, failureLabel, failureMessage } from "./call-driver.ts";
import { createLatencyRecorder } from "./histogram.ts";
import type { LoopResult } from "./loop-result.ts";
import { createOperationStats } from "./operation-stats.ts";
import type { Workload } from "./workload.ts";

// Closed loop: a fixed number of callers, each starting its next call as soon
// as the last one ended. Throughput is what the system sustains at that
// concurrency. The first `warmupSeconds` run but are not counted.

export interface ClosedLoopOptions {
  readonly concurrency: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
}

export async function runClosedLoop(
  driver: CallDriver,
  workload: Workload,
  options: ClosedLoopOptions,
): Promise<LoopResult> {
  const start = createOperationStats();
  const end = createOperationStats();
  const call = createLatencyRecorder();
  const measureFrom = performance.now() + options.warmupSeconds * 1000;
  const deadline = measureFrom + options.durationSeconds * 1000;
  let completed = 0;
  let ended = 0;

  const worker = async () => {
    while (performance.now() < deadline) {
      const simulated = workload.next();
      const sentAt = performance.now();
      const counted = sentAt >= measureFrom;
      let customerRef: string;
      try {
        customerRef = await driver.start(simulated);
      } catch (error) {
        if (counted) start.fail(failureLabel(error), failureMessage(error));
        continue;
      }
      const endSentAt = performance.now();
      if (counted && endSentAt <= deadline) start.latency.record(endSentAt - sentAt);
      try {
        await driver.end(simulated, customerRef);
      } catch (error) {
        if (counted) end.fail(failureLabel(error), failureMessage(error));
        continue;
      }
      const doneAt = performance.now();
      ended++;
      // A call counts when it ran wholly inside the measured window.
      if (counted && doneAt <= deadline) {
        end.latency.record(doneAt - endSentAt);
        call.record(doneAt - sentAt);
        completed++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));

  const startResult = start.result();
  const endResult = end.result();
  return {
    mode: "closed",
    durationSeconds: options.durationSeconds,
    concurrency: options.concurrency,
    callsCompleted: completed,
    callsEnded: ended,
    callsPerSecond: completed / options.durationSeconds,
    requestsPerSecond: (startResult.ok + endResult.ok) / options.durationSeconds,
    start: startResult,
    end: endResult,
    call: call.summary(),
  };
}
