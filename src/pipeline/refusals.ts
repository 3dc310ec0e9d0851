import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { type Limits, writeLimitHeaders } from "./headers.ts";
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
  /** The limits the client is answered with (the limit's own headers). */
  readonly limits?: Limits;
}

export function rateLimitExceeded(refusal: RateLimitRefusal): ConnectError {
  const seconds = secondsUntil(refusal.retryAtMs, refusal.nowMs);
  const error = new ConnectError(refusal.message, Code.ResourceExhausted, retryAfter(seconds), [
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
  if (refusal.limits !== undefined) writeLimitHeaders(error.metadata, refusal.limits);
  return error;
}

export function quotaExhausted(billingAccountId: string): ConnectError {
  const error = new ConnectError("Monthly quota exhausted", Code.ResourceExhausted, undefined, [
    { desc: QuotaExhaustedSchema, value: create(QuotaExhaustedSchema, { quotaRemaining: 0, billingAccountId }) },
  ]);
  writeLimitHeaders(error.metadata, { quotaRemaining: 0 });
  return error;
}

/** The limit a refusal came from, or undefined for an error that is not a limit's refusal. */
export function limitOf(error: unknown): "quota_exhausted" | "rate_limited" | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  if (error.findDetails(QuotaExhaustedSchema).length > 0) return "quota_exhausted";
  if (error.findDetails(RateLimitExceededSchema).length > 0) return "rate_limited";
  return undefined;
}
