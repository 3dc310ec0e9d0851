"""What became of a call's start, named for the bot's log and metrics.

`context`: the caller's context arrived within the budget. The others leave the bot talking without it:
`late` (the budget ran out), `refused` (the service answered no: quota, rate limit, its own 503, a bad request),
`down` (the service could not be reached), `no_caller` (the pipeline carries no phone call, or
no caller number: nothing to start from).
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

import httpx

from caller_context import CallerContextError, DeadlineExceededError

StartOutcome = Literal["context", "late", "refused", "down", "no_caller"]

START_OUTCOMES: Counter[StartOutcome] = Counter()
"""Every start of this process by outcome, for the application's metrics (a Prometheus counter's source)."""


def outcome_of(error: CallerContextError) -> StartOutcome:
    if isinstance(error, DeadlineExceededError):
        return "late"
    # The client raises a transport failure from httpx's own error; an answer of the service has none.
    if isinstance(error.__cause__, httpx.TransportError):
        return "down"
    return "refused"
