"""Every error class, reached by making the real service refuse for real."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from caller_context import (
    AuthenticationError,
    CallerContextClient,
    ConflictError,
    IdempotencyKeyMismatchError,
    IdentityHints,
    NotFoundError,
    QuotaExhaustedError,
    RateLimitedError,
    RetryPolicy,
    UnavailableError,
    ValidationError,
)

from counting import counting_client
from service import Account, Admin, ServiceProcess, create_database, start_service


def new_call() -> str:
    return f"py-{uuid.uuid4()}"


def test_an_unknown_key_is_an_authentication_error_not_retried(service: ServiceProcess) -> None:
    client, attempts = counting_client(service.url, "sk_test_unknown")
    with pytest.raises(AuthenticationError) as raised:
        client.start(new_call(), IdentityHints(ani="+14155550100"))
    assert (raised.value.status, raised.value.message) == (401, "Invalid or missing API key")
    assert attempts.count == 1


def test_a_revoked_key_is_an_authentication_error_saying_so(service: ServiceProcess, admin: Admin) -> None:
    account = admin.create_account()
    admin.revoke_key(account.key_id)
    with CallerContextClient(service.url, account.api_key) as client, pytest.raises(AuthenticationError) as raised:
        client.usage()
    assert raised.value.message == "API key has been revoked"


def test_an_exhausted_quota_is_a_quota_error_with_the_billing_account_not_retried(
    service: ServiceProcess, admin: Admin
) -> None:
    account = admin.create_account()
    admin.set_quota(account.account_id, 0)
    client, attempts = counting_client(service.url, account.api_key)
    with pytest.raises(QuotaExhaustedError) as raised:
        client.start(new_call(), IdentityHints(ani="+14155550101"))
    assert (raised.value.status, raised.value.quota_remaining) == (402, 0)
    assert raised.value.billing_account_id == account.billing_account_id
    assert attempts.count == 1


def test_a_rate_limit_refusal_carries_its_hint_and_is_not_retried_past_the_deadline(
    service: ServiceProcess, admin: Admin
) -> None:
    # A Free key: 100 a minute, 110 with the grace margin, the 111th refused (docs/limits.md). Erasing an
    # unknown customer is rate limited, never billed, and answers 404.
    account = admin.create_account(tier="free")
    with httpx.Client(base_url=service.url, headers={"Authorization": f"Bearer {account.api_key}"}) as raw:
        statuses = [raw.delete(f"/v1/customers/{uuid.uuid4()}").status_code for _ in range(110)]
    assert set(statuses) == {404}
    client, attempts = counting_client(service.url, account.api_key)
    with pytest.raises(RateLimitedError) as raised:
        client.customers.erase(str(uuid.uuid4()))
    error = raised.value
    print(f"429: retry after {error.retry_after_seconds} s, usage {error.current_usage}, reset at {error.reset_at}")
    assert error.status == 429 and error.limit == 100 and error.current_usage is not None
    assert error.retry_after_seconds > 5 and error.reset_at is not None
    # The wait it asks for ends past the 5 s deadline: no retry is started.
    assert attempts.count == 1


def test_a_start_with_a_call_id_in_use_is_a_conflict_naming_it(service: ServiceProcess, account: Account) -> None:
    call_id = new_call()
    client, attempts = counting_client(service.url, account.api_key)
    client.start(call_id, IdentityHints(ani="+14155550102"))
    with pytest.raises(ConflictError) as raised:
        client.start(call_id, IdentityHints(ani="+14155550102"))
    assert raised.value.status == 409 and call_id in raised.value.message
    assert attempts.count == 2


def test_a_second_end_of_an_ended_call_is_a_conflict(service: ServiceProcess, account: Account) -> None:
    with CallerContextClient(service.url, account.api_key) as client:
        started = client.start(new_call(), IdentityHints(ani="+14155550103"))
        client.end(started.call_id, customer_ref=started.customer_ref)
        # Another end (its own Idempotency-Key) of the same call.
        with pytest.raises(ConflictError):
            client.end(started.call_id, customer_ref=started.customer_ref)


def test_invalid_input_is_a_validation_error_with_the_services_issues(
    service: ServiceProcess, account: Account
) -> None:
    client, attempts = counting_client(service.url, account.api_key)
    with pytest.raises(ValidationError) as raised:
        client.start("", IdentityHints())
    assert raised.value.status == 400 and raised.value.message == "Validation failed"
    assert {issue.path for issue in raised.value.issues} >= {("call_id",), ("identity_hints",)}
    assert attempts.count == 1


def test_an_unknown_call_or_customer_is_not_found(service: ServiceProcess, account: Account) -> None:
    with CallerContextClient(service.url, account.api_key) as client:
        with pytest.raises(NotFoundError) as raised:
            client.customers.get(str(uuid.uuid4()))
        assert raised.value.status == 404
        with pytest.raises(NotFoundError):
            client.end(new_call(), customer_ref=str(uuid.uuid4()))


def test_an_idempotency_key_reused_with_another_end_is_a_mismatch(service: ServiceProcess, account: Account) -> None:
    with CallerContextClient(service.url, account.api_key) as client:
        started = client.start(new_call(), IdentityHints(ani="+14155550104"))
        key = f"key-{uuid.uuid4()}"
        first = client.end(started.call_id, customer_ref=started.customer_ref, intent="a", idempotency_key=key)
        again = client.end(started.call_id, customer_ref=started.customer_ref, intent="a", idempotency_key=key)
        assert again == first
        with pytest.raises(IdempotencyKeyMismatchError) as raised:
            client.end(started.call_id, customer_ref=started.customer_ref, intent="b", idempotency_key=key)
        assert raised.value.status == 422


@pytest.fixture(scope="module")
def overloaded() -> Iterator[tuple[ServiceProcess, Account]]:
    """A second service that believes its heap full (a 1-byte bound), so it sheds every call with 503."""
    database = create_database()
    running = start_service({**database.env, "ADMISSION_MAX_HEAP_USED_BYTES": "1"})
    admin = Admin(running.url)
    try:
        account = admin.create_account()
        # The pressure is sampled every 500 ms: wait for the first sample to refuse.
        refused = False
        with httpx.Client(base_url=running.url, headers={"Authorization": f"Bearer {account.api_key}"}) as raw:
            for _ in range(100):
                if raw.get(f"/v1/customers/{uuid.uuid4()}").status_code == 503:
                    refused = True
                    break
                time.sleep(0.1)
        assert refused, "the overloaded service never answered 503"
        yield running, account
    finally:
        admin.close()
        running.stop()
        database.drop()


def test_the_services_503_is_unavailable_with_its_retry_after_and_saved_nothing(
    overloaded: tuple[ServiceProcess, Account],
) -> None:
    running, account = overloaded
    client, attempts = counting_client(running.url, account.api_key, retry=RetryPolicy(max_attempts=1))
    with pytest.raises(UnavailableError) as raised:
        client.start(new_call(), IdentityHints(ani="+14155550105"))
    assert raised.value.status == 503 and raised.value.retry_after_seconds == 1
    assert raised.value.request_may_have_landed is False
    assert attempts.count == 1


def test_a_start_refused_with_503_is_sent_again_after_the_retry_hint(
    overloaded: tuple[ServiceProcess, Account],
) -> None:
    running, account = overloaded
    client, attempts = counting_client(running.url, account.api_key, timeout=10, retry=RetryPolicy(max_attempts=3))
    with pytest.raises(UnavailableError):
        client.start(new_call(), IdentityHints(ani="+14155550106"))
    # The service said nothing was saved, so even a start is repeated: all three attempts, each after >= 1 s.
    assert attempts.count == 3
