"""The call is ended once at the service, on EndFrame or on CancelFrame, with what the bot recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from customers import known_caller
from pipecat.frames.frames import CancelFrame
from pipecat.tests.utils import SleepFrame

from caller_context import AsyncCallerContextClient, CallerContextClient, EndedCall

from pipelines import build_bot, new_line, run_call
from service import Account, ServiceProcess
from slow_proxy import SlowProxy

END = "/v1/calls/end"
OUTCOME = {
    "intent": "billing_question",
    "status": "resolved",
    "variables": [{"name": "preferred_name", "value": "Ann"}],
    "summary": "Renewed the gold plan.",
}


@pytest.fixture
def counted(service: ServiceProcess) -> Iterator[SlowProxy]:
    proxy = SlowProxy(service.url)
    yield proxy
    proxy.close()


@pytest.mark.parametrize("stop", ["EndFrame", "CancelFrame"])
def test_the_call_is_ended_once_with_the_recorded_outcome_and_summary(
    service: ServiceProcess, counted: SlowProxy, account: Account, stop: str
) -> None:
    caller = known_caller(service.url, account.api_key)
    line = new_line(caller.ani)

    async def call() -> None:
        async with AsyncCallerContextClient(counted.url, account.api_key) as callers:
            bot = build_bot(callers, line, script=[[("record_call_outcome", OUTCOME)]], greet=True)
            frames = [SleepFrame(sleep=2.0)]
            if stop == "CancelFrame":
                await run_call(bot.pipeline, [*frames, CancelFrame()], send_end_frame=False)
            else:
                await run_call(bot.pipeline, frames)
            # Ended by the time the pipeline is down; asked again (as the teardown does), it is the same end.
            assert counted.requests[END] == 1
            assert (await bot.memory.end()) is not None

    asyncio.run(call())
    assert counted.requests[END] == 1
    with CallerContextClient(service.url, account.api_key) as callers:
        record = callers.customers.get(caller.customer_ref)
    ended = next(c for c in record.calls if c.call_id == line.call_id)
    assert ended.call_end is not None and ended.summary == OUTCOME["summary"]
    assert [(i.intent, i.status) for i in ended.intents] == [("billing_question", "resolved")]
    assert record.variables["preferred_name"].value == "Ann"
    assert "billing_question" not in {i.intent for i in record.open_intents}


def test_an_end_whose_answer_is_lost_is_sent_again_with_its_key_and_saved_once(
    service: ServiceProcess, account: Account
) -> None:
    caller = known_caller(service.url, account.api_key)
    line = new_line(caller.ani)
    lossy = SlowProxy(service.url, lose_first_answer_to=END)
    try:

        async def call() -> EndedCall | None:
            async with AsyncCallerContextClient(lossy.url, account.api_key) as callers:
                bot = build_bot(callers, line, script=[[("record_call_outcome", OUTCOME)]], greet=True)
                await run_call(bot.pipeline, [SleepFrame(sleep=2.0)])
                return await bot.memory.end()

        ended = asyncio.run(call())
    finally:
        lossy.close()
    # The service saved the first end; its answer was lost; the same end, with the same key, was answered with it.
    assert lossy.requests[END] == 2
    assert ended is not None and ended.call_id == line.call_id and ended.intents_updated == 1
    with CallerContextClient(service.url, account.api_key) as callers:
        record = callers.customers.get(caller.customer_ref)
    assert next(c for c in record.calls if c.call_id == line.call_id).summary == OUTCOME["summary"]
