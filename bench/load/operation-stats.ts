import { createLatencyRecorder, type LatencyRecorder, type LatencySummary } from "./histogram.ts";

// What one operation (start or end) did during a phase: the latency of each
// success and the failures, counted by what went wrong.

/** A failure the service declined and asked to be retried (503 / UNAVAILABLE): a refusal, not a fault. */
export function isRefusal(label: string): boolean {
  return label === "http 503" || label === "grpc UNAVAILABLE";
}

export interface OperationStats {
  readonly latency: LatencyRecorder;
  /** Counts a failure by its label; the first message of each label is kept as an example. */
  fail(label: string, message?: string): void;
  result(): OperationResult;
}

export interface OperationResult {
  readonly ok: number;
  readonly errors: number;
  /** e.g. {"http 429": 3, "timeout": 1}. */
  readonly errorsByKind: Readonly<Record<string, number>>;
  /** Of the errors, the refusals (isRefusal). */
  readonly refused: number;
  /** The first message seen for each kind. */
  readonly errorExamples: Readonly<Record<string, string>>;
  readonly latency: LatencySummary;
}

export function createOperationStats(): OperationStats {
  const latency = createLatencyRecorder();
  const errors = new Map<string, number>();
  const examples = new Map<string, string>();
  return {
    latency,
    fail(label, message) {
      errors.set(label, (errors.get(label) ?? 0) + 1);
      if (message !== undefined && !examples.has(label)) examples.set(label, message);
    },
    result() {
      const errorsByKind = Object.fromEntries(errors);
      const total = [...errors.values()].reduce((sum, n) => sum + n, 0);
      return {
        ok: latency.count,
        errors: total,
        errorsByKind,
        refused: [...errors].reduce((sum, [label, n]) => (isRefusal(label) ? sum + n : sum), 0),
        errorExamples: Object.fromEntries(examples),
        latency: latency.summary(),
      };
    },
  };
}
