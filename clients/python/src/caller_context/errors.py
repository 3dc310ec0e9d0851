"""One exception class per outcome the service documents.

Each carries the HTTP status the REST API answers the same outcome with, and the codes are those of the
TypeScript client, so code written against either handles errors the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


class CallerContextError(Exception):
    """Every failure of a call: `code` names the outcome, `status` is the REST API's status for it."""

    code: str = "internal"
    status: int = 500

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status


@dataclass(frozen=True)
class ValidationIssue:
    """One offending field: its path (e.g. ["identity_hints"], ["variables", "plan"]) and why."""

    path: tuple[str, ...]
    message: str


class ValidationError(CallerContextError):
    """400: the request is malformed; `issues` names every offending field. Not retried."""

    code = "validation_failed"
    status = 400

    def __init__(self, message: str, issues: tuple[ValidationIssue, ...]) -> None:
        super().__init__(message)
        self.issues = issues


class AuthenticationError(CallerContextError):
    """401: missing, unknown or revoked API key. Not retried."""

    code = "unauthenticated"
    status = 401


class QuotaExhaustedError(CallerContextError):
    """402: the monthly quota is used up; a plan upgrade or the next month helps. Not retried."""

    code = "quota_exhausted"
    status = 402

    def __init__(self, message: str, quota_remaining: int, billing_account_id: str) -> None:
        super().__init__(message)
        self.quota_remaining = quota_remaining
        self.billing_account_id = billing_account_id


class NotFoundError(CallerContextError):
    """404: an unknown call_id (end, identify) or customer_ref (customer records)."""

    code = "not_found"
    status = 404


class ConflictError(CallerContextError):
    """409: a start with a call_id already used, or an end or identify of a call already ended."""

    code = "conflict"
    status = 409


class IdempotencyKeyMismatchError(CallerContextError):
    """422: an Idempotency-Key reused with a different end request."""

    code = "idempotency_key_mismatch"
    status = 422


class RateLimitedError(CallerContextError):
    """429: the per-minute rate limit refused the call; wait `retry_after_seconds`."""

    code = "rate_limited"
    status = 429

    def __init__(
        self,
        message: str,
        retry_after_seconds: float,
        current_usage: int | None = None,
        limit: int | None = None,
        reset_at: datetime | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds
        self.current_usage = current_usage
        self.limit = limit
        self.reset_at = reset_at


class UnavailableError(CallerContextError):
    """503, or no answer at all.

    The service's own 503 saved nothing (`request_may_have_landed` is False). A connection lost after the
    request was sent leaves unknown whether the service acted on it (`request_may_have_landed` is True).
    """

    code = "unavailable"
    status = 503

    def __init__(self, message: str, retry_after_seconds: float | None, request_may_have_landed: bool) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds
        self.request_may_have_landed = request_may_have_landed


class DeadlineExceededError(CallerContextError):
    """The call's deadline (`timeout`) passed before an answer, retries included."""

    code = "deadline_exceeded"
    status = 504
