import type { LatencySummary } from "./histogram.ts";
import type { OperationResult } from "./operation-stats.ts";

/** What a load loop measured, in either mode. */
export interface LoopResult {
  readonly mode: "open" | "closed";
  readonly durationSeconds: number;
  /** Open loop: the calls/s on the timetable. */
  readonly offeredCallsPerSecond?: number;
  /** Closed loop: calls in flight. */
  readonly concurrency?: number;
  /** Calls whose start and end both succeeded. */
  readonly callsCompleted: number;
  readonly callsPerSecond: number;
  /** Successful requests (starts + ends) per second. */
  readonly requestsPerSecond: number;
  readonly start: OperationResult;
  readonly end: OperationResult;
  /** A whole call, start sent to end answered, from its scheduled time in the open loop. */
  readonly call: LatencySummary;
  /** Open loop: how late the client sent starts behind the timetable (its own lag). */
  readonly sendLag?: LatencySummary;
}

/**
 * An open loop whose service completed less than 95 % of the offered calls:
 * its latencies measure the backlog, not the service, and are not comparable.
 */
export function isOverloaded(loop: LoopResult): boolean {
  return loop.offeredCallsPerSecond !== undefined && loop.callsPerSecond < 0.95 * loop.offeredCallsPerSecond;
}
