// One exception class per outcome the service documents, each carrying the HTTP status the REST API
// gives the same outcome, so code written against either API handles errors the same way.

export type CallerContextErrorCode =
  | "validation_failed"
  | "unauthenticated"
  | "quota_exhausted"
  | "not_found"
  | "conflict"
  | "idempotency_key_mismatch"
  | "rate_limited"
  | "too_large"
  | "unavailable"
  | "deadline_exceeded"
  | "canceled"
  | "internal";

export class CallerContextError extends Error {
  override readonly name: string = "CallerContextError";
  readonly code: CallerContextErrorCode;
  /** The status the REST API answers the same outcome with (504 for a deadline the client gave up at). */
  readonly status: number;

  constructor(code: CallerContextErrorCode, status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.status = status;
  }
}

export interface ValidationIssue {
  /** Field path, e.g. ["identity_hints"] or ["variables", "plan"]. */
  readonly path: readonly string[];
  readonly message: string;
}

/** 400: the request is malformed; `issues` names every offending field. Not retried. */
export class ValidationError extends CallerContextError {
  override readonly name = "ValidationError";
  readonly issues: readonly ValidationIssue[];
  constructor(message: string, issues: readonly ValidationIssue[], options?: { cause?: unknown }) {
    super("validation_failed", 400, message, options);
    this.issues = issues;
  }
}

/** 401: missing, unknown or revoked API key. Not retried. */
export class AuthenticationError extends CallerContextError {
  override readonly name = "AuthenticationError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("unauthenticated", 401, message, options);
  }
}

/** 402: the monthly quota is used up; a plan upgrade or the next month helps. Not retried. */
export class QuotaExhaustedError extends CallerContextError {
  override readonly name = "QuotaExhaustedError";
  readonly quotaRemaining: number;
  readonly billingAccountId: string;
  constructor(message: string, quotaRemaining: number, billingAccountId: string, options?: { cause?: unknown }) {
    super("quota_exhausted", 402, message, options);
    this.quotaRemaining = quotaRemaining;
    this.billingAccountId = billingAccountId;
  }
}

/** 404: an unknown call_id (end, identify) or customer_ref (customer records). */
export class NotFoundError extends CallerContextError {
  override readonly name = "NotFoundError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("not_found", 404, message, options);
  }
}

/** 409: a start with a call_id already used, or an end/identify of a call already ended. */
export class ConflictError extends CallerContextError {
  override readonly name = "ConflictError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("conflict", 409, message, options);
  }
}

/** 422: an Idempotency-Key reused with a different end request. */
export class IdempotencyKeyMismatchError extends CallerContextError {
  override readonly name = "IdempotencyKeyMismatchError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("idempotency_key_mismatch", 422, message, options);
  }
}

export interface RateLimitHint {
  /** Seconds to wait before retrying. */
  readonly retryAfterSeconds: number;
  /** Requests counted in the last 60 seconds (undefined when the service did not say). */
  readonly currentUsage?: number;
  /** The tier's base limit per minute. */
  readonly limit?: number;
  readonly resetAt?: Date;
}

/** 429: the per-minute rate limit refused the call; wait `retryAfterSeconds`. */
export class RateLimitedError extends CallerContextError {
  override readonly name = "RateLimitedError";
  readonly retryAfterSeconds: number;
  readonly currentUsage: number | undefined;
  readonly limit: number | undefined;
  readonly resetAt: Date | undefined;
  constructor(message: string, hint: RateLimitHint, options?: { cause?: unknown }) {
    super("rate_limited", 429, message, options);
    this.retryAfterSeconds = hint.retryAfterSeconds;
    this.currentUsage = hint.currentUsage;
    this.limit = hint.limit;
    this.resetAt = hint.resetAt;
  }
}

/**
 * 503, or no answer at all. A 503 of the service saved nothing; a connection lost after the request was
 * sent (`requestMayHaveLanded`) leaves unknown whether the service acted on it.
 */
export class UnavailableError extends CallerContextError {
  override readonly name = "UnavailableError";
  readonly retryAfterSeconds: number | undefined;
  readonly requestMayHaveLanded: boolean;
  constructor(
    message: string,
    retryAfterSeconds: number | undefined,
    requestMayHaveLanded: boolean,
    options?: { cause?: unknown },
  ) {
    super("unavailable", 503, message, options);
    this.retryAfterSeconds = retryAfterSeconds;
    this.requestMayHaveLanded = requestMayHaveLanded;
  }
}

/** The call's deadline (`timeoutMs`) passed before an answer, retries included. */
export class DeadlineExceededError extends CallerContextError {
  override readonly name = "DeadlineExceededError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("deadline_exceeded", 504, message, options);
  }
}
