"""Clients whose attempts are counted (httpx event hooks), to tell a refusal that was retried from one that was not."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from caller_context import AsyncCallerContextClient, CallerContextClient, RetryPolicy


@dataclass
class Attempts:
    paths: list[str] = field(default_factory=list)
    headers: list[httpx.Headers] = field(default_factory=list)

    def record(self, request: httpx.Request) -> None:
        self.paths.append(request.url.path)
        self.headers.append(request.headers)

    async def arecord(self, request: httpx.Request) -> None:
        self.record(request)

    @property
    def count(self) -> int:
        return len(self.paths)


def counting_client(
    base_url: str, api_key: str, *, timeout: float = 5.0, retry: RetryPolicy | None = None
) -> tuple[CallerContextClient, Attempts]:
    attempts = Attempts()
    http = httpx.Client(event_hooks={"request": [attempts.record]})
    return CallerContextClient(base_url, api_key, timeout=timeout, retry=retry, http_client=http), attempts


def counting_async_client(
    base_url: str, api_key: str, *, timeout: float = 5.0, retry: RetryPolicy | None = None
) -> tuple[AsyncCallerContextClient, Attempts]:
    attempts = Attempts()
    http = httpx.AsyncClient(event_hooks={"request": [attempts.arecord]})
    return AsyncCallerContextClient(base_url, api_key, timeout=timeout, retry=retry, http_client=http), attempts
