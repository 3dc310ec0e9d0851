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
  /**
   * Every call whose end was answered while the loop ran, its warm-up included: what the database did
   * during the loop is divided by these (blocks per call).
   */
  readonly callsEnded: number;
  readonly callsPerSecond: number;
  /** Successful requests (starts + ends) per second. */
  readonly requestsPerSecond: number;
  readonly start: OperationResult;
  readonly end: OperationResult;
  /** A whole call, start sent to end answered, from its scheduled time in the open loop. */
  readonly call: LatencySummary;
  /** Open loop: how late the client sent starts behind the timetable (its own lag). */
  readonly sendLag?: LatencySummary;
  /** Open loop: starts refused with 503 / UNAVAILABLE, timed from their scheduled send. */
  readonly refusals?: LatencySummary;
  /**
   * Open loop: the same refusals timed from the moment the client sent them,
   * which leaves out the client's own lag behind its timetable (a diagnosis:
   * the targets count from the scheduled send, as a caller would).
   */
  readonly refusalsFromSend?: LatencySummary;
  /** Open loop: calls still in flight when the timetable ended (a queue, when large). */
  readonly backlogAtEnd?: number;
}

/**
 * An open loop whose service fell behind: it completed less than 95 % of the
 * offered calls, or more than a quarter of a second's worth of calls was still
 * queued when the timetable ended. Its latencies measure the queue, not the
 * service, and are not comparable with another run's.
 */
export function isOverloaded(loop: LoopResult): boolean {
  const offered = loop.offeredCallsPerSecond;
  if (offered === undefined) return false;
  return loop.callsPerSecond < 0.95 * offered || (loop.backlogAtEnd ?? 0) > 0.25 * offered;
}
