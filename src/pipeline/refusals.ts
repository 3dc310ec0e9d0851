import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { retryAfter, secondsUntil } from "./retry-after.ts";

// The guards' refusals for a limit, with the typed details every protocol
// carries (REST reads them into the spec's 402 and 429 bodies).

export interface RateLimitRefusal {
  readonly message: string;
  /** Calls (or failures) counted in the window, and the limit they passed. */
  readonly count: number;
  readonly limit: number;
  /** When the window lets the client in again, and now (epoch ms). */
  readonly retryAtMs: number;
  readonly nowMs: number;
  /** Other headers the client is answered with (the limit's own). */
  readonly headers?: Record<string, string>;
}

export function rateLimitExceeded(refusal: RateLimitRefusal): ConnectError {
  const seconds = secondsUntil(refusal.retryAtMs, refusal.nowMs);
  return new ConnectError(refusal.message, Code.ResourceExhausted, { ...refusal.headers, ...retryAfter(seconds) }, [
    {
      desc: RateLimitExceededSchema,
      value: create(RateLimitExceededSchema, {
        retryAfterSeconds: seconds,
        currentUsage: refusal.count,
        limit: refusal.limit,
        resetAt: timestampFromMs(refusal.retryAtMs),
      }),
    },
  ]);
}

export function quotaExhausted(billingAccountId: string): ConnectError {
  return new ConnectError("Monthly quota exhausted", Code.ResourceExhausted, { "x-quota-remaining": "0" }, [
    { desc: QuotaExhaustedSchema, value: create(QuotaExhaustedSchema, { quotaRemaining: 0, billingAccountId }) },
  ]);
}

/** The limit a refusal came from, or undefined for an error that is not a limit's refusal. */
export function limitOf(error: unknown): "quota_exhausted" | "rate_limited" | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  if (error.findDetails(QuotaExhaustedSchema).length > 0) return "quota_exhausted";
  if (error.findDetails(RateLimitExceededSchema).length > 0) return "rate_limited";
  return undefined;
}
