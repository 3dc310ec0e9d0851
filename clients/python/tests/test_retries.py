"""The retry rules over a lossy or silent network: an end is repeated and saved once, a start that may have
landed is not repeated, one deadline covers every attempt."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator

import pytest

from caller_context import (
    CallerContextClient,
    DeadlineExceededError,
    IdentityHints,
    RetryPolicy,
    UnavailableError,
)

from counting import counting_async_client, counting_client
from net_fakes import LossyProxy, SilentServer, closed_port_url
from service import Account, ServiceProcess

# A generous guard against a hang, never a figure the test asserts on: a deadline that does not hold would
# leave the call waiting on the silent server for good.
HANG_GUARD_S = 30.0


def new_call() -> str:
    return f"py-{uuid.uuid4()}"


@pytest.fixture
def lossy(service: ServiceProcess) -> Iterator[LossyProxy]:
    proxy = LossyProxy(service.url)
    yield proxy
    proxy.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def test_an_end_whose_answer_is_lost_is_sent_again_with_the_same_key_and_saved_once(
    service: ServiceProcess, account: Account, lossy: LossyProxy
) -> None:
    with CallerContextClient(service.url, account.api_key) as direct:
        started = direct.start(new_call(), IdentityHints(ani="+14155550140"))
    client, attempts = counting_client(lossy.url, account.api_key)
    ended = client.end(started.call_id, customer_ref=started.customer_ref, intent="refund", variables={"a": "1"})
    assert lossy.answers_lost == 1 and attempts.count == 2
    keys = {headers["idempotency-key"] for headers in attempts.headers}
    assert len(keys) == 1, keys
    # The second attempt got the first end's answer back; a second save would have answered 409.
    assert (ended.call_id, ended.intents_updated, ended.variables_updated) == (started.call_id, 1, 1)
    with CallerContextClient(service.url, account.api_key) as direct:
        record = direct.customers.get(started.customer_ref)
    assert [c.call_id for c in record.calls] == [started.call_id]
    assert [(i.intent, i.attempt_count) for i in record.open_intents] == [("refund", 1)]


def test_a_start_whose_answer_is_lost_is_not_sent_again(
    service: ServiceProcess, account: Account, lossy: LossyProxy
) -> None:
    client, attempts = counting_client(lossy.url, account.api_key)
    call_id = new_call()
    with pytest.raises(UnavailableError) as raised:
        client.start(call_id, IdentityHints(ani="+14155550141"))
    assert raised.value.request_may_have_landed is True
    assert attempts.count == 1 and lossy.connections == 1
    # It had landed: the service holds the call.
    with CallerContextClient(service.url, account.api_key) as direct:
        listed = direct.customers.list(ani="+14155550141")
        assert [c.call_id for c in direct.customers.get(listed[0].customer_ref).calls] == [call_id]


def test_a_start_to_an_address_that_refuses_connections_is_tried_max_attempts_times() -> None:
    client, attempts = counting_client(closed_port_url(), "sk_test_x", retry=RetryPolicy(max_attempts=3))
    with pytest.raises(UnavailableError) as raised:
        client.start(new_call(), IdentityHints(ani="+14155550142"))
    assert raised.value.request_may_have_landed is False
    assert attempts.count == 3


def test_a_start_held_up_past_its_deadline_fails_once_with_deadline_exceeded(silent: SilentServer) -> None:
    client, attempts = counting_client(silent.url, "sk_test_x", timeout=0.5)
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            client.start(new_call(), IdentityHints(ani="+14155550143"))
        except BaseException as error:
            outcome.append(error)

    began = time.monotonic()
    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    print(f"deadline 0.5 s: gave up after {time.monotonic() - began:.2f} s")
    assert not worker.is_alive(), "the call outlived its deadline"
    assert len(outcome) == 1 and isinstance(outcome[0], DeadlineExceededError)
    assert outcome[0].status == 504
    assert attempts.count == 1 and silent.connections == 1


def test_an_end_held_up_past_its_deadline_is_not_given_a_fresh_deadline_per_attempt(silent: SilentServer) -> None:
    # An end is repeatable, yet a timed-out attempt has used the whole deadline: nothing is left to retry with.
    client, attempts = counting_client(silent.url, "sk_test_x", timeout=0.5)
    with pytest.raises(DeadlineExceededError):
        client.end(new_call(), customer_ref=str(uuid.uuid4()))
    assert attempts.count == 1


def test_an_async_start_with_a_budget_lets_the_caller_go_on_without_context(
    service: ServiceProcess, account: Account, silent: SilentServer
) -> None:
    async def scenario() -> tuple[str | None, str]:
        slow, _ = counting_async_client(silent.url, account.api_key)
        fast, _ = counting_async_client(service.url, account.api_key)
        async with slow, fast:
            try:
                context = await asyncio.wait_for(
                    slow.start(new_call(), IdentityHints(ani="+14155550144"), timeout=0.3), HANG_GUARD_S
                )
                ref: str | None = context.customer_ref
            except DeadlineExceededError:
                ref = None
            started = await fast.start(new_call(), IdentityHints(ani="+14155550144"), timeout=5)
            return ref, started.customer_ref

    without_context, with_context = asyncio.run(scenario())
    assert without_context is None and with_context


def test_an_async_end_whose_answer_is_lost_is_saved_once(
    service: ServiceProcess, account: Account, lossy: LossyProxy
) -> None:
    async def scenario() -> None:
        direct, _ = counting_async_client(service.url, account.api_key)
        client, attempts = counting_async_client(lossy.url, account.api_key)
        async with direct, client:
            started = await direct.start(new_call(), IdentityHints(ani="+14155550145"))
            ended = await client.end(started.call_id, customer_ref=started.customer_ref, intent="x")
            assert attempts.count == 2 and lossy.answers_lost == 1
            assert ended.intents_updated == 1
            record = await direct.customers.get(started.customer_ref)
            assert [(i.intent, i.attempt_count) for i in record.open_intents] == [("x", 1)]

    asyncio.run(scenario())
