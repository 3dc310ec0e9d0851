"""The client's own settings, checked once when it is made: a wrong one fails there with one line naming it,
rather than as a confusing failure of the first call."""

from __future__ import annotations

import httpx


def checked_base_url(base_url: str) -> httpx.URL:
    try:
        url: httpx.URL | None = httpx.URL(base_url.rstrip("/") + "/")
    except (TypeError, AttributeError, httpx.InvalidURL):
        url = None
    if url is None or url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"base_url must be an http:// or https:// URL such as http://127.0.0.1:8080, got {base_url!r}")
    return url


def checked_api_key(api_key: str) -> str:
    if not isinstance(api_key, str) or api_key.strip() == "":
        raise ValueError("api_key is empty: pass the service's sk_test_... or sk_prod_... key")
    return api_key


def checked_timeout(timeout: float) -> float:
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"timeout must be a number of seconds above 0, got {timeout!r}")
    return float(timeout)
