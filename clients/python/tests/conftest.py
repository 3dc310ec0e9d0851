from __future__ import annotations

import uuid
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


@pytest.fixture
def call_id() -> str:
    return f"py-{uuid.uuid4()}"
