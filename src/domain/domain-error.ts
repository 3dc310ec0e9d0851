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
  return new DomainError("invalid_argument", VALIDATION_FAILED, issues);
}
