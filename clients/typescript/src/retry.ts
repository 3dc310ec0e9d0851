import { setTimeout as sleep } from "node:timers/promises";
import { type CallerContextError, RateLimitedError, UnavailableError } from "./errors.ts";

// One deadline for a whole operation, retries included: each attempt gets what is left of it, and no
// retry starts when its wait would end past it. Which failures are retried depends on what a repeat of
// the request would do.

export interface RetryPolicy {
  /** Attempts in all, the first included (1 turns retries off). */
  readonly maxAttempts: number;
  /** The first backoff; each further one doubles, up to `maxBackoffMs`. */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, initialBackoffMs: 100, maxBackoffMs: 2_000 };

/**
 * `repeatable`: a repeat has the effect of one request (reads, and an end with its Idempotency-Key).
 * `once`: a repeat would act twice or answer 409 (start, identify, customer changes), so it is retried
 * only when the service certainly did not act: a rate-limit refusal, its own 503, a connection never opened.
 */
export type RetrySafety = "repeatable" | "once";

export function isRetryable(error: CallerContextError, safety: RetrySafety): boolean {
  if (error instanceof RateLimitedError) return true;
  if (error instanceof UnavailableError) return safety === "repeatable" || !error.requestMayHaveLanded;
  return safety === "repeatable" && error.code === "internal";
}

export interface RetryRun {
  readonly policy: RetryPolicy;
  readonly safety: RetrySafety;
  /** Epoch milliseconds after which nothing more is tried. */
  readonly deadline: number;
  readonly signal?: AbortSignal;
  /** Maps whatever an attempt threw to the client's errors. */
  readonly toError: (thrown: unknown) => CallerContextError;
}

export async function withRetries<T>(run: RetryRun, attempt: (timeoutMs: number) => Promise<T>): Promise<T> {
  for (let attempted = 1; ; attempted++) {
    try {
      return await attempt(Math.max(1, run.deadline - Date.now()));
    } catch (thrown) {
      const error = run.toError(thrown);
      if (attempted >= run.policy.maxAttempts || !isRetryable(error, run.safety)) throw error;
      const waitMs = backoffMs(run.policy, attempted, error);
      if (Date.now() + waitMs >= run.deadline) throw error;
      await sleep(waitMs, undefined, { signal: run.signal }).catch(() => {
        throw error;
      });
    }
  }
}

/** Exponential backoff with jitter, never shorter than the service's own retry hint. */
export function backoffMs(policy: RetryPolicy, attempted: number, error: CallerContextError): number {
  const ceiling = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (attempted - 1));
  const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
  const hintSeconds =
    error instanceof RateLimitedError || error instanceof UnavailableError ? (error.retryAfterSeconds ?? 0) : 0;
  return Math.max(jittered, hintSeconds * 1000);
}
