// What the admission control promises its callers (the guards, the hosts, health and the metrics); the
// control itself is src/guards/admission.ts.

export type ShedReason = "limit" | "queue_forecast" | "pressure" | "deadline";

export interface Permit {
  /** Ends the call's hold on the limit; its latency is a sample of the limit, a call past its deadline a drop. */
  release(outcome?: { readonly pastDeadline: boolean }): void;
}

export type Admission = { readonly permit: Permit } | { readonly refused: ShedReason };

export interface AdmissionStats {
  readonly limit: number;
  readonly inFlight: number;
  readonly queued: number;
  readonly admitted: number;
  readonly refused: Readonly<Record<ShedReason, number>>;
}

/** What the control needs to know about a call. */
export interface AdmissionRequest {
  /** Aborted when the caller leaves (or its deadline passes): a queued call then leaves too. */
  readonly signal: AbortSignal;
  /** Milliseconds left before the call's deadline; a call without one may wait `queueWaitMs` at most. */
  readonly msLeft?: () => number;
  /** An end: work let in earlier, admitted at once, over the limit if need be. */
  readonly finishes?: boolean;
}

export interface AdmissionControl {
  /**
   * Admits a call, queues it, or refuses it at once. A queued call leaves
   * when its deadline passes or its caller leaves; one found past its
   * deadline when its turn comes is refused rather than started. A call that
   * `finishes` work let in earlier (an end) is let in at once, over the limit
   * if need be: refusing it would waste the work already done.
   */
  acquire(request: AdmissionRequest): Promise<Admission>;
  /**
   * The refusal acquire would give at once whatever the call's deadline
   * (pressure, a full queue, or a standing queue too slow to join), counted as
   * such; undefined when a call may try. Lets a host refuse before it reads
   * and decodes the request.
   */
  refuseEarly(): ShedReason | undefined;
  /** Refused calls recently, or under pressure now: what health reports as degraded. */
  shedding(): boolean;
  stats(): AdmissionStats;
}
