import type { CallOptions as ConnectCallOptions } from "@connectrpc/connect";
import { toCallerContextError } from "./error-mapping.ts";
import { type RetryPolicy, type RetrySafety, withRetries } from "./retry.ts";

// Runs one operation of the client: its deadline, its retries, its errors mapped once.

export interface CallOptions {
  /** The deadline of this call, retries included; the client's `timeoutMs` when not given. */
  readonly timeoutMs?: number;
  /** Aborts the call (a `CallerContextError` with code `canceled`). */
  readonly signal?: AbortSignal;
  /** Extra request headers (gRPC metadata), e.g. `x-request-id`. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface CallRunner {
  run<T>(
    safety: RetrySafety,
    options: CallOptions | undefined,
    attempt: (connectOptions: ConnectCallOptions) => Promise<T>,
    extraHeaders?: Readonly<Record<string, string>>,
  ): Promise<T>;
}

export function createCallRunner(defaults: { timeoutMs: number; retry: RetryPolicy }): CallRunner {
  return {
    run(safety, options = {}, attempt, extraHeaders = {}) {
      const timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
      const headers = { ...options.headers, ...extraHeaders };
      return withRetries(
        {
          policy: defaults.retry,
          safety,
          deadline: Date.now() + timeoutMs,
          signal: options.signal,
          toError: (thrown) => toCallerContextError(thrown, { callerAborted: options.signal?.aborted }),
        },
        (remainingMs) => attempt({ timeoutMs: remainingMs, signal: options.signal, headers }),
      );
    },
  };
}
