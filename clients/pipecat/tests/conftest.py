"""The real service for these tests, started by the Python client's own helper (clients/python/tests/service.py,
imported through the test path, not copied): on the embedded database, or on a fresh PostgreSQL database when
PG_TEST_URL or DATABASE_URL names a server."""

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
    """A fresh account and test key per test: quotas and customers never leak between tests."""
    return admin.create_account()
