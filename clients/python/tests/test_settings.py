"""A wrong setting fails when the client is made, with one line naming it."""

from __future__ import annotations

import pytest

from caller_context import AsyncCallerContextClient, CallerContextClient


@pytest.mark.parametrize("make", [CallerContextClient, AsyncCallerContextClient])
@pytest.mark.parametrize(
    ("base_url", "api_key", "timeout", "names"),
    [
        ("127.0.0.1:8080", "sk_test_x", 5.0, "base_url"),
        ("ftp://example.com", "sk_test_x", 5.0, "base_url"),
        ("http://", "sk_test_x", 5.0, "base_url"),
        ("http://127.0.0.1:8080", "", 5.0, "api_key"),
        ("http://127.0.0.1:8080", "sk_test_x", 0, "timeout"),
    ],
)
def test_a_wrong_setting_is_a_one_line_error_naming_it(
    make: type, base_url: str, api_key: str, timeout: float, names: str
) -> None:
    with pytest.raises(ValueError) as raised:
        make(base_url, api_key, timeout=timeout)
    message = str(raised.value)
    assert message.startswith(names) and "\n" not in message
