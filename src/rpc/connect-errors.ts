import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { IdempotencyKeyMismatchSchema, ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { DomainError, type DomainErrorCode } from "../domain/domain-error.ts";
import { RETRY_AFTER_SECONDS, retryAfter } from "./retry-after.ts";

// The one mapping from domain errors to Connect codes and typed details.
// HTTP statuses are derived from these in src/http, never from domain codes.

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

/** Wraps a method implementation so every DomainError leaves it as a ConnectError. */
export function withDomainErrors<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (error) {
      throw error instanceof DomainError ? domainErrorToConnect(error) : error;
    }
  };
}
