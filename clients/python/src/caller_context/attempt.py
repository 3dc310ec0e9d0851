"""What the sync and asyncio clients share about one attempt: the request it sends and how its answer reads."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any, TypeVar

import httpx

from .error_mapping import error_from_response
from .operations import Operation

T = TypeVar("T")

USER_AGENT = "caller-context-python/0.1.0"


def request_arguments(operation: Operation[Any], remaining: float, headers: Mapping[str, str] | None) -> dict[str, Any]:
    """httpx arguments of one attempt, given `remaining` seconds of the call's deadline.

    httpx times each phase (connect, write, read) on its own, so each gets what is left of the one deadline;
    the service is told too (`connect-timeout-ms`, which the Connect protocol defines), so it gives up on a late
    write instead of acting on it after the client has stopped waiting.
    """
    sent_headers = {
        **(headers or {}),
        **operation.headers,
        "connect-timeout-ms": str(max(1, math.floor(remaining * 1000))),
    }
    arguments: dict[str, Any] = {
        "method": operation.method,
        "url": operation.path,
        "headers": sent_headers,
        "timeout": httpx.Timeout(remaining),
    }
    if operation.body is not None:
        arguments["json"] = operation.body
    if operation.params is not None:
        arguments["params"] = operation.params
    return arguments


def read_answer(operation: Operation[T], response: httpx.Response) -> T:
    if response.status_code != 200:
        raise error_from_response(response)
    return operation.parse(response.json())


def now() -> float:
    return time.monotonic()
