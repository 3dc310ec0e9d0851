"""The one translation from what happened to an attempt (an answer, or a failure of the connection) to the
client's exceptions."""

from __future__ import annotations

from typing import Any

import httpx

from .errors import (
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
    ValidationIssue,
)
from .timestamps import parse_timestamp


def error_from_response(response: httpx.Response) -> CallerContextError:
    body = _json_object(response)
    message = str(body.get("message") or body.get("error") or response.reason_phrase or "HTTP error")
    status = response.status_code
    if status == 400:
        issues = (body.get("details") or {}).get("issues") or ()
        return ValidationError(
            message, tuple(ValidationIssue(tuple(i.get("path") or ()), str(i.get("message", ""))) for i in issues)
        )
    if status == 401:
        return AuthenticationError(message)
    if status == 402:
        return QuotaExhaustedError(message, int(body.get("quota_remaining") or 0), str(body.get("billing_account_id")))
    if status == 404:
        return NotFoundError(message)
    if status == 409:
        return ConflictError(message)
    if status == 413:
        # Over the service's size limit: sending it again fails again.
        return CallerContextError(message, code="too_large", status=413)
    if status == 422:
        return IdempotencyKeyMismatchError(message)
    if status == 429:
        retry_after = body.get("retryAfter")
        return RateLimitedError(
            message,
            retry_after_seconds=float(retry_after) if retry_after is not None else _retry_after(response) or 1.0,
            current_usage=body.get("currentUsage"),
            limit=body.get("limit"),
            reset_at=parse_timestamp(body.get("resetAt")),
        )
    if status == 503:
        # The service's own 503: its write was undone, nothing was saved.
        return UnavailableError(message, _retry_after(response), request_may_have_landed=False)
    return CallerContextError(message, code="internal", status=status)


def error_from_transport(error: httpx.TransportError) -> CallerContextError:
    """A failure of the connection rather than an answer: whether the request may have reached the service."""
    if isinstance(error, httpx.TimeoutException):
        return DeadlineExceededError(f"No answer within the deadline ({type(error).__name__})")
    if isinstance(error, httpx.ConnectError):
        return UnavailableError(f"Could not connect: {error}", None, request_may_have_landed=False)
    return UnavailableError(f"Connection lost: {error or type(error).__name__}", None, request_may_have_landed=True)


def _json_object(response: httpx.Response) -> dict[str, Any]:
    try:
        value = response.json()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _retry_after(response: httpx.Response) -> float | None:
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
