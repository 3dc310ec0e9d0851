import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  AuthenticationError,
  CallerContextError,
  ConflictError,
  DeadlineExceededError,
  IdempotencyKeyMismatchError,
  NotFoundError,
  QuotaExhaustedError,
  RateLimitedError,
  UnavailableError,
  ValidationError,
} from "./errors.ts";
import {
  IdempotencyKeyMismatchSchema,
  QuotaExhaustedSchema,
  RateLimitExceededSchema,
  ValidationFailureSchema,
} from "./gen/callercontext/v1/errors_pb.ts";

// The one translation from what Connect reports (a code, typed details, response metadata) to the
// client's exceptions. The typed details decide where the code alone is ambiguous: resource exhausted is
// either the monthly quota or the rate limit, invalid argument either bad input or a reused key.

export function toCallerContextError(thrown: unknown, context: { callerAborted?: boolean } = {}): CallerContextError {
  if (thrown instanceof CallerContextError) return thrown;
  const error = ConnectError.from(thrown);
  const message = error.rawMessage;
  const options = { cause: error };
  // A canceled call the caller did not abort is a stream the other side reset (HTTP/2 RST_STREAM CANCEL).
  const lost = error.code === Code.Canceled && !context.callerAborted ? "after-sending" : connectionFailure(error);
  if (lost !== undefined) return new UnavailableError(message, undefined, lost === "after-sending", options);
  switch (error.code) {
    case Code.InvalidArgument: {
      if (error.findDetails(IdempotencyKeyMismatchSchema).length > 0) {
        return new IdempotencyKeyMismatchError(message, options);
      }
      const failure = error.findDetails(ValidationFailureSchema)[0];
      const issues = (failure?.issues ?? []).map((issue) => ({ path: [...issue.path], message: issue.message }));
      return new ValidationError(message, issues, options);
    }
    case Code.Unauthenticated:
      return new AuthenticationError(message, options);
    case Code.ResourceExhausted:
      return resourceExhausted(error);
    case Code.NotFound:
      return new NotFoundError(message, options);
    case Code.AlreadyExists:
    case Code.FailedPrecondition:
    case Code.Aborted:
      return new ConflictError(message, options);
    case Code.Unavailable:
      // The service's own 503: its write was undone, nothing was saved.
      return new UnavailableError(message, retryAfterHeader(error), false, options);
    case Code.DeadlineExceeded:
      return new DeadlineExceededError(message, options);
    case Code.Canceled:
      return new CallerContextError("canceled", 499, message, options);
    default:
      return new CallerContextError("internal", 500, message, options);
  }
}

function resourceExhausted(error: ConnectError): CallerContextError {
  const options = { cause: error };
  const quota = error.findDetails(QuotaExhaustedSchema)[0];
  if (quota) {
    return new QuotaExhaustedError(error.rawMessage, quota.quotaRemaining, quota.billingAccountId, options);
  }
  const rate = error.findDetails(RateLimitExceededSchema)[0];
  if (rate) {
    return new RateLimitedError(
      error.rawMessage,
      {
        retryAfterSeconds: rate.retryAfterSeconds,
        currentUsage: rate.currentUsage,
        limit: rate.limit,
        resetAt: rate.resetAt ? timestampDate(rate.resetAt) : undefined,
      },
      options,
    );
  }
  // Without details it is a request over the service's size limit (the REST API's 413): sending it again fails again.
  return new CallerContextError("too_large", 413, error.rawMessage, options);
}

// Names Node gives a connection that could not be opened at all: the request never left.
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT"]);

/**
 * A failure of the connection rather than an answer of the service (Connect reports a reset connection
 * as aborted or internal, with the Node error as its cause): whether the request may have reached it.
 */
function connectionFailure(error: ConnectError): "before-sending" | "after-sending" | undefined {
  const codes: string[] = [];
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 8; depth++, cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
  }
  if (codes.length === 0) return undefined;
  return codes.some((code) => NOT_SENT.has(code)) ? "before-sending" : "after-sending";
}

function retryAfterHeader(error: ConnectError): number | undefined {
  const value = Number.parseInt(error.metadata.get("retry-after") ?? "", 10);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}
