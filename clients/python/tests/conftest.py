from __future__ import annotations

import uuid

import pytest

# The service, admin and account fixtures, shared with the integrations' tests.
pytest_plugins = ["service_fixtures"]


@pytest.fixture
def call_id() -> str:
    return f"py-{uuid.uuid4()}"
