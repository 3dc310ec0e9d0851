import { type CallDriver, failureLabel, failureMessage } from "./call-driver.ts";
import { createLatencyRecorder } from "./histogram.ts";
import type { LoopResult } from "./loop-result.ts";
import { createOperationStats, isRefusal } from "./operation-stats.ts";
import type { Workload } from "./workload.ts";

// Open loop: call starts follow a fixed timetable whatever the service does,
// as phones ring whether or not the last caller was served. Each start's
// latency counts from its scheduled send time, so a stall shows in every call
// that should have been sent during it (no coordinated omission). An end is
// sent the moment its start answers; its latency counts from then.

export interface OpenLoopOptions {
  readonly callsPerSecond: number;
  readonly durationSeconds: number;
  /** Past this many calls in flight the client gives up on new ones (counted as errors). */
  readonly maxInFlight?: number;
  /** How long to wait for calls still in flight after the last one was sent. */
  readonly drainTimeoutMs?: number;
  /** Told of every start: when it was due and its latency, or undefined when it failed. */
  readonly onStart?: (scheduledAt: number, latencyMs: number | undefined) => void;
}

export async function runOpenLoop(
  driver: CallDriver,
  workload: Workload,
  options: OpenLoopOptions,
): Promise<LoopResult> {
  const maxInFlight = options.maxInFlight ?? 5_000;
  const drainTimeoutMs = options.drainTimeoutMs ?? 15_000;
  const total = Math.max(1, Math.round(options.callsPerSecond * options.durationSeconds));
  const intervalMs = 1000 / options.callsPerSecond;
  const start = createOperationStats();
  const end = createOperationStats();
  const call = createLatencyRecorder();
  const sendLag = createLatencyRecorder();
  const refusals = createLatencyRecorder();
  const refusalsFromSend = createLatencyRecorder();
  let inFlight = 0;
  let completed = 0;

  const runCall = async (scheduledAt: number, sentAt: number) => {
    inFlight++;
    const simulated = workload.next();
    try {
      let customerRef: string;
      try {
        customerRef = await driver.start(simulated);
      } catch (error) {
        const label = failureLabel(error);
        start.fail(label, failureMessage(error));
        if (isRefusal(label)) {
          const answeredAt = performance.now();
          refusals.record(answeredAt - scheduledAt);
          refusalsFromSend.record(answeredAt - sentAt);
        }
        options.onStart?.(scheduledAt, undefined);
        return;
      }
      const endSentAt = performance.now();
      start.latency.record(endSentAt - scheduledAt);
      options.onStart?.(scheduledAt, endSentAt - scheduledAt);
      try {
        await driver.end(simulated, customerRef);
      } catch (error) {
        end.fail(failureLabel(error), failureMessage(error));
        return;
      }
      const doneAt = performance.now();
      end.latency.record(doneAt - endSentAt);
      call.record(doneAt - scheduledAt);
      completed++;
    } finally {
      inFlight--;
    }
  };

  const t0 = performance.now() + 10;
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && t0 + next * intervalMs <= now) {
        const scheduledAt = t0 + next * intervalMs;
        next++;
        sendLag.record(now - scheduledAt);
        if (inFlight >= maxInFlight) start.fail("client overload");
        else void runCall(scheduledAt, now);
      }
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, t0 + next * intervalMs - performance.now()));
    };
    setTimeout(tick, Math.max(0, t0 - performance.now()));
  });
  const scheduleEnd = t0 + total * intervalMs;
  const backlogAtEnd = inFlight;
  const drainDeadline = performance.now() + drainTimeoutMs;
  while (inFlight > 0 && performance.now() < drainDeadline) await sleep(5);
  // Calls still waiting count as failed starts; they are not waited for any longer.
  for (let n = inFlight; n > 0; n--) start.fail(`unfinished ${drainTimeoutMs / 1000} s after the last send`);

  // Throughput over the timetable, or longer when the service lagged behind it.
  const elapsedSeconds = (Math.max(scheduleEnd, performance.now()) - t0) / 1000;
  const startResult = start.result();
  const endResult = end.result();
  return {
    mode: "open",
    durationSeconds: options.durationSeconds,
    offeredCallsPerSecond: options.callsPerSecond,
    callsCompleted: completed,
    // No warm-up inside an open loop: a warm-up is a loop of its own.
    callsEnded: completed,
    callsPerSecond: completed / elapsedSeconds,
    requestsPerSecond: (startResult.ok + endResult.ok) / elapsedSeconds,
    start: startResult,
    end: endResult,
    call: call.summary(),
    sendLag: sendLag.summary(),
    refusals: refusals.summary(),
    refusalsFromSend: refusalsFromSend.summary(),
    backlogAtEnd,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
