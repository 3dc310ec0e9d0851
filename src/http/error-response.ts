import { STATUS_CODES } from "node:http";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  IdempotencyKeyMismatchSchema,
  QuotaExhaustedSchema,
  RateLimitExceededSchema,
  ValidationFailureSchema,
} from "../../gen/callercontext/v1/errors_pb.ts";

// ConnectError → the spec's JSON error: {error: <status phrase>, message, ...extra}.
// The Connect code picks the status; typed details refine it and add fields.

export interface HttpError {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const STATUS_BY_CODE: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.FailedPrecondition]: 409,
  [Code.Aborted]: 409,
  [Code.ResourceExhausted]: 429,
  [Code.Canceled]: 499,
  [Code.Unimplemented]: 501,
  [Code.Unavailable]: 503,
  [Code.DeadlineExceeded]: 503,
};

export function connectErrorToHttp(error: ConnectError): HttpError {
  const validation = error.findDetails(ValidationFailureSchema)[0];
  if (validation) {
    return body(400, error.rawMessage, {
      details: { issues: validation.issues.map((issue) => ({ path: issue.path, message: issue.message })) },
    });
  }
  if (error.findDetails(IdempotencyKeyMismatchSchema).length > 0) return body(422, error.rawMessage);
  const quota = error.findDetails(QuotaExhaustedSchema)[0];
  if (quota) {
    return body(402, error.rawMessage, {
      quota_remaining: quota.quotaRemaining,
      billing_account_id: quota.billingAccountId,
    });
  }
  const rate = error.findDetails(RateLimitExceededSchema)[0];
  if (rate) {
    return body(429, error.rawMessage, {
      retryAfter: rate.retryAfterSeconds,
      currentUsage: rate.currentUsage,
      limit: rate.limit,
      resetAt: rate.resetAt ? timestampDate(rate.resetAt).toISOString() : null,
    });
  }
  const status = STATUS_BY_CODE[error.code] ?? 500;
  // Below 500 the message is ours to show; above it, it may carry internals.
  return body(status, status < 500 || status === 503 ? error.rawMessage : "Internal server error");
}

export function body(status: number, message: string, extra: Record<string, unknown> = {}): HttpError {
  return { status, body: { error: STATUS_CODES[status] ?? "Error", message, ...extra } };
}

export function toConnectError(error: unknown): ConnectError {
  return error instanceof ConnectError
    ? error
    : new ConnectError("Internal server error", Code.Internal, undefined, undefined, error);
}
