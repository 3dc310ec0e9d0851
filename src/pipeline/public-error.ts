import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { IdempotencyKeyMismatchSchema, ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { DomainError, type DomainErrorCode } from "../domain/domain-error.ts";
import { isDatabaseUnavailable } from "../store/database.ts";
import { RETRY_AFTER_SECONDS, retryAfter } from "./retry-after.ts";

// The public form of every error, whatever the protocol: the one mapping from
// domain errors to Connect codes and typed details, and what any other error
// may show. HTTP statuses are derived from these codes in src/http
// (httpStatusOf), never from domain codes.

const CODES: Record<DomainErrorCode, Code> = {
  invalid_argument: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  failed_precondition: Code.FailedPrecondition,
  idempotency_mismatch: Code.InvalidArgument,
  resource_exhausted: Code.ResourceExhausted,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
};

export function domainErrorToConnect(error: DomainError): ConnectError {
  const details = [];
  if (error.code === "invalid_argument") {
    details.push({
      desc: ValidationFailureSchema,
      value: create(ValidationFailureSchema, {
        issues: error.issues.map((issue) => ({ path: [...issue.path], message: issue.message })),
      }),
    });
  }
  if (error.code === "idempotency_mismatch") {
    details.push({ desc: IdempotencyKeyMismatchSchema, value: create(IdempotencyKeyMismatchSchema, {}) });
  }
  // An unavailable answer tells the client when to retry, as every other 503 of the service does.
  const metadata = error.code === "unavailable" ? retryAfter(RETRY_AFTER_SECONDS.unavailable) : undefined;
  return new ConnectError(error.message, CODES[error.code], metadata, details);
}

/**
 * Any error as its client may see it, whatever the protocol. A ConnectError
 * is already public; a domain error maps to its code; a call whose signal was
 * aborted ran out of time; a database that cannot be reached is a 503 the
 * client may retry; anything else is a bug and says nothing of its internals.
 * Logging what was not public is src/pipeline/unexpected-errors.ts's part.
 */
export function publicError(error: unknown, signal?: AbortSignal): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof DomainError) return domainErrorToConnect(error);
  if (signal?.aborted) {
    return new ConnectError("The request was cancelled or its deadline passed", Code.DeadlineExceeded);
  }
  if (isDatabaseUnavailable(error)) {
    return new ConnectError(
      "Service temporarily unavailable",
      Code.Unavailable,
      retryAfter(RETRY_AFTER_SECONDS.unavailable),
    );
  }
  return new ConnectError("Internal server error", Code.Internal);
}
