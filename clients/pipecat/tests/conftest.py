"""The real service for these tests, started by the Python client's own fixtures (clients/python/tests/
service_fixtures.py, imported through the test path, not copied): on the embedded database, or on a fresh PostgreSQL
database when PG_TEST_URL or DATABASE_URL names a server."""

pytest_plugins = ["service_fixtures"]
