"""The real service, started from this checkout as the Python client's tests start it: its fixtures
(../python/tests/service_fixtures.py, on the test path) on the embedded database, or on a fresh PostgreSQL database
when PG_TEST_URL names a server."""

pytest_plugins = ["service_fixtures"]
