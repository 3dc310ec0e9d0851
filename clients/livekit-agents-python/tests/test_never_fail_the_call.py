"""Never fail a call: a start has a budget; when the service is late, refuses or is down the agent answers without
context and says why; a start that may have landed is never sent again; a caller that is not SIP is no crash."""

from __future__ import annotations

import asyncio
import time

from agent_turns import caller_says
from callers import ROOMY_START_BUDGET, new_number, sip_attributes
from livekit import rtc

from caller_context import AsyncCallerContextClient, DeadlineExceededError, QuotaExhaustedError
from caller_context_livekit import CallMemory, NotASipCallerError, start_call_memory

from delaying_proxy import DelayingProxy
from livekit_fakes import ServerRoom, job_context, shut_down, sip_caller, web_client
from net_fakes import closed_port_url
from scripted_llm import REPLY
from service import Account, Admin, ServiceProcess

BUDGET = 0.3


async def start_and_answer(base_url: str, api_key: str) -> tuple[CallMemory, float, list[BaseException]]:
    """Starts a call through `base_url` within the budget, then runs a caller's turn: what the agent answered."""
    failures: list[BaseException] = []
    async with AsyncCallerContextClient(base_url, api_key) as client:
        memory = CallMemory(
            client, sip_caller(sip_attributes(new_number())), start_budget=BUDGET, on_start_failed=failures.append
        )
        began = time.monotonic()
        started = await memory.start()
        took = time.monotonic() - began
        assert started is None
        _, answer = await caller_says(memory, "Hello?")
        assert answer == REPLY
        return memory, took, failures


def test_a_service_slower_than_the_budget_leaves_the_agent_answering_without_context(
    service: ServiceProcess, account: Account
) -> None:
    proxy = DelayingProxy(service.url, delay=3.0)
    try:
        memory, took, failures = asyncio.run(start_and_answer(proxy.url, account.api_key))
    finally:
        proxy.close()
    assert took < BUDGET + 0.5  # far below the 3 s the service takes, with room for a busy machine
    assert [type(error) for error in failures] == [DeadlineExceededError]
    assert memory.instructions("You are a support agent.") == "You are a support agent."
    assert memory.chat_context().items == []


def test_a_service_that_is_down_leaves_the_agent_answering_without_context(account: Account) -> None:
    memory, took, failures = asyncio.run(start_and_answer(closed_port_url(), account.api_key))
    assert took < BUDGET + 0.5  # far below the 3 s the service takes, with room for a busy machine
    assert len(failures) == 1
    assert memory.latest is None


def test_a_service_that_refuses_leaves_the_agent_answering_without_context(
    service: ServiceProcess, admin: Admin, account: Account
) -> None:
    admin.set_quota(account.account_id, 0)
    memory, _, failures = asyncio.run(start_and_answer(service.url, account.api_key))
    assert [type(error) for error in failures] == [QuotaExhaustedError]
    assert memory.context_text == ""


def test_a_start_that_may_have_landed_is_not_sent_again_and_no_end_follows(
    service: ServiceProcess, account: Account
) -> None:
    proxy = DelayingProxy(service.url, delay=1.0)

    async def scenario() -> None:
        failures: list[BaseException] = []
        async with AsyncCallerContextClient(proxy.url, account.api_key) as client:
            memory = CallMemory(
                client, sip_caller(sip_attributes(new_number())), start_budget=BUDGET, on_start_failed=failures.append
            )
            assert await memory.start() is None
            # The first start reaches the service after its budget: a second would only be refused (409).
            assert await memory.start() is None
            await asyncio.sleep(1.5)
            assert await memory.end() is None
        assert len(failures) == 1
        assert proxy.connections == 1

    try:
        asyncio.run(scenario())
    finally:
        proxy.close()


def test_a_participant_that_is_not_a_sip_caller_gets_no_start_and_no_crash(
    service: ServiceProcess, account: Account
) -> None:
    async def scenario() -> None:
        failures: list[BaseException] = []
        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            memory = CallMemory(client, web_client(), on_start_failed=failures.append)
            assert await memory.start() is None
            assert (await caller_says(memory, "Hi there"))[1] == REPLY
            assert await memory.end() is None
        assert [type(error) for error in failures] == [NotASipCallerError]

    asyncio.run(scenario())


def test_the_job_waits_for_the_sip_caller_rather_than_taking_whoever_is_in_the_room(
    service: ServiceProcess, account: Account
) -> None:
    async def scenario() -> None:
        room = ServerRoom()
        ctx = job_context(room)
        ani = new_number()

        async def people_join() -> None:
            # A web client is in the room first; the SIP caller's participant joins after the job has started.
            room.join(web_client())
            await asyncio.sleep(0.2)
            room.join(sip_caller(sip_attributes(ani)))

        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            joining = asyncio.create_task(people_join())
            memory = await start_call_memory(ctx, client, start_budget=ROOMY_START_BUDGET)
            await joining
            assert memory.latest is not None
            record = await client.customers.get(memory.latest.customer_ref)
            assert record.identifiers.ani == (ani,)
            await shut_down(ctx)

    asyncio.run(scenario())


def test_console_mode_has_no_sip_caller_and_answers_without_context(service: ServiceProcess, account: Account) -> None:
    async def scenario() -> None:
        failures: list[BaseException] = []
        ctx = job_context(rtc.Room(), console=True)
        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            memory = await start_call_memory(ctx, client, on_start_failed=failures.append)
            assert memory.latest is None
            assert (await caller_says(memory, "Hello"))[1] == REPLY
            await shut_down(ctx)
        assert [type(error) for error in failures] == [NotASipCallerError]

    asyncio.run(scenario())
