"""The end runs from the job's shutdown callbacks, once, with what the agent recorded and the call's summary; an end
whose answer was lost is sent again with the same Idempotency-Key and saved once."""

from __future__ import annotations

import asyncio

import httpx
from agent_turns import caller_says
from callers import ROOMY_START_BUDGET, new_number, sip_attributes

from caller_context import AsyncCallerContextClient, IdentityHints, UnavailableError
from caller_context_livekit import CallMemory

from delaying_proxy import AnswerLosingProxy
from livekit_fakes import ServerRoom, job_context, shut_down, sip_caller
from service import Account, ServiceProcess

OUTCOME = {
    "intent": "connection_drops",
    "status": "open",
    "variables": [{"name": "router", "value": "fritzbox_7590"}],
    "summary": "Line checked; engineer visit to book.",
}


def test_the_shutdown_callbacks_end_the_call_once_with_what_the_agent_recorded(
    service: ServiceProcess, account: Account
) -> None:
    async def scenario() -> None:
        ani = new_number()
        ends_sent: list[httpx.Request] = []

        async def count_ends(request: httpx.Request) -> None:
            if request.url.path.endswith("/calls/end"):
                ends_sent.append(request)

        counting = httpx.AsyncClient(event_hooks={"request": [count_ends]})
        async with counting, AsyncCallerContextClient(service.url, account.api_key, http_client=counting) as client:
            memory = CallMemory(client, sip_caller(sip_attributes(ani)), start_budget=ROOMY_START_BUDGET)
            await memory.start()
            await caller_says(memory, "My internet keeps dropping", ("record_call_outcome", OUTCOME))
            ctx = job_context(ServerRoom())
            memory.end_on_shutdown(ctx)
            memory.end_on_shutdown(ctx)  # registered twice, as a careless app might: still one end
            await shut_down(ctx)
            assert len(ends_sent) == 1
            assert await memory.end() is not None and len(ends_sent) == 1
            assert memory.customer_ref is not None
            record = await client.customers.get(memory.customer_ref)
            assert len(record.calls) == 1 and record.calls[0].call_end is not None

            following = await client.start(f"c-{memory.customer_ref}-next", IdentityHints(ani=ani))
            assert following.customer_ref == memory.customer_ref
            assert [open_intent.intent for open_intent in following.open_intents] == ["connection_drops"]
            assert following.variables["router"].value == "fritzbox_7590"
            assert [call.summary for call in following.recent_calls] == ["Line checked; engineer visit to book."]
            # The next call's agent reads the summary in its context.
            again = CallMemory(client, sip_caller(sip_attributes(ani)), start_budget=ROOMY_START_BUDGET)
            await again.start()
            assert "Line checked; engineer visit to book." in again.context_text

    asyncio.run(scenario())


def test_an_end_whose_answers_were_lost_is_sent_again_with_its_key_and_saved_once(
    service: ServiceProcess, account: Account
) -> None:
    proxy = AnswerLosingProxy(service.url)

    async def scenario() -> None:
        failures: list[BaseException] = []
        # A connection per request, so that the proxy loses exactly the answers it is told to.
        one_shot = httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0))
        async with one_shot, AsyncCallerContextClient(proxy.url, account.api_key, http_client=one_shot) as client:
            memory = CallMemory(client, sip_caller(sip_attributes(new_number())), start_budget=ROOMY_START_BUDGET)
            assert await memory.start() is not None
            memory.record_intent("billing_question", "open")
            memory.set_summary("Asked about the November bill.")

            # Every attempt of the end reaches the service; each answer is lost on the way back.
            proxy.lose_next_answers(3)
            ctx = job_context(ServerRoom())
            memory.end_on_shutdown(ctx, on_error=failures.append)
            await shut_down(ctx)  # never raises into the framework's shutdown
            assert [type(error) for error in failures] == [UnavailableError]
            assert proxy.answers_lost == 3
            # Tried once more: the same key, so the service answers with the first end's result.
            ended = await memory.end()
            assert ended is not None and ended.intents_updated == 1

            assert memory.customer_ref is not None
            record = await client.customers.get(memory.customer_ref)
            assert len(record.calls) == 1
            assert record.calls[0].summary == "Asked about the November bill."
            assert [(i.intent, i.attempt_count) for i in record.open_intents] == [("billing_question", 1)]

    try:
        asyncio.run(scenario())
    finally:
        proxy.close()
