"""The real service and its accounts as pytest fixtures, shared by the tests of the Python client and of the
integrations built on it (clients/livekit-agents-python, clients/pipecat), whose conftest loads this module as a
plugin (`pytest_plugins`). The service is started from this checkout (service.py): on the embedded database, or
on a fresh PostgreSQL database when PG_TEST_URL or DATABASE_URL names a server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service import Account, Admin, ServiceProcess, create_database, start_service


@pytest.fixture(scope="session")
def service() -> Iterator[ServiceProcess]:
    database = create_database()
    running = start_service(database.env)
    print(f"\nservice at {running.url} on {'PostgreSQL' if database.name else 'the embedded database'}")
    try:
        yield running
    finally:
        running.stop()
        database.drop()


@pytest.fixture(scope="session")
def admin(service: ServiceProcess) -> Iterator[Admin]:
    client = Admin(service.url)
    yield client
    client.close()


@pytest.fixture
def account(admin: Admin) -> Account:
    """A fresh account and test key per test: quotas, rate limits and customers never leak between tests."""
    return admin.create_account()
