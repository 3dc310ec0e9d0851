import { MAX_REPORTED_ISSUES, MAX_REPORTED_PATH_SEGMENT_LENGTH } from "./limits.ts";

// Errors as values: domain code reports what went wrong in its own terms and
// never knows about HTTP or gRPC. src/rpc maps the code to a Connect code once.

export type DomainErrorCode =
  | "invalid_argument"
  | "unauthenticated"
  | "not_found"
  | "already_exists"
  | "failed_precondition"
  | "idempotency_mismatch"
  | "resource_exhausted"
  | "unavailable"
  | "internal";

export interface FieldIssue {
  readonly path: readonly string[];
  readonly message: string;
}

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly issues: readonly FieldIssue[];

  constructor(code: DomainErrorCode, message: string, issues: readonly FieldIssue[] = []) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.issues = issues;
  }
}

export const VALIDATION_FAILED = "Validation failed";

export function validationError(issues: readonly FieldIssue[]): DomainError {
  const reported = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => ({
    path: issue.path.map((segment) =>
      segment.length > MAX_REPORTED_PATH_SEGMENT_LENGTH
        ? `${segment.slice(0, MAX_REPORTED_PATH_SEGMENT_LENGTH)}…`
        : segment,
    ),
    message: issue.message,
  }));
  return new DomainError("invalid_argument", VALIDATION_FAILED, reported);
}
