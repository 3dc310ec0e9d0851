"""Which failures are retried, and how long to wait: the TypeScript client's rules.

One deadline covers a whole operation, retries included; no retry starts whose wait would end past it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from .errors import CallerContextError, RateLimitedError, UnavailableError

# "repeatable": a repeat has the effect of one request (reads, and an end with its Idempotency-Key).
# "once": a repeat would act twice or answer 409 (start, identify, customer changes), so it is retried only
# when the service certainly did not act: a rate-limit refusal, its own 503, a connection never opened.
RetrySafety = Literal["repeatable", "once"]


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 3
    """Attempts in all, the first included (1 turns retries off)."""
    initial_backoff: float = 0.1
    """Seconds before the first retry; each further one doubles, up to `max_backoff`."""
    max_backoff: float = 2.0


def is_retryable(error: CallerContextError, safety: RetrySafety) -> bool:
    if isinstance(error, RateLimitedError):
        return True
    if isinstance(error, UnavailableError):
        return safety == "repeatable" or not error.request_may_have_landed
    return safety == "repeatable" and error.code == "internal"


def backoff_seconds(policy: RetryPolicy, attempted: int, error: CallerContextError) -> float:
    """Exponential backoff with jitter, never shorter than the service's own retry hint."""
    ceiling = min(policy.max_backoff, policy.initial_backoff * 2.0 ** (attempted - 1))
    jittered = ceiling / 2 + random.random() * (ceiling / 2)
    hint = 0.0
    if isinstance(error, (RateLimitedError, UnavailableError)):
        hint = error.retry_after_seconds or 0.0
    return max(jittered, hint)
