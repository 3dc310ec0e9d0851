"""No frame waits for the start: they flow while it is in flight, and the context goes in when it arrives."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from customers import known_caller
from pipecat.frames.frames import InputAudioRawFrame, LLMRunFrame, TextFrame
from pipecat.tests.utils import SleepFrame

from caller_context import AsyncCallerContextClient

from pipelines import HEADING, build_bot, new_line, run_call
from service import Account, ServiceProcess
from slow_proxy import SlowProxy

START = "/v1/calls/start"
DELAY = 1.5
BUDGET = 3.0


@pytest.fixture
def slow_service(service: ServiceProcess) -> Iterator[SlowProxy]:
    """The service behind a network that holds every request 1.5 s: slow, within the budget these tests give.

    Wide margins: a busy machine may take a while to bring the pipeline up before the first frame is sent."""
    proxy = SlowProxy(service.url, delay=DELAY)
    yield proxy
    proxy.close()


def test_frames_pass_while_the_start_is_in_flight_and_the_context_joins_when_it_arrives(
    service: ServiceProcess, slow_service: SlowProxy, account: Account
) -> None:
    caller = known_caller(service.url, account.api_key)
    audio = InputAudioRawFrame(audio=b"\x00\x00" * 160, sample_rate=8000, num_channels=1)
    sent = [audio, TextFrame("hello"), LLMRunFrame()]

    async def call() -> None:
        async with AsyncCallerContextClient(slow_service.url, account.api_key) as callers:
            bot = build_bot(callers, new_line(caller.ani), start_budget=BUDGET)
            began = time.monotonic()
            await run_call(bot.pipeline, [*sent, SleepFrame(sleep=DELAY + 0.5), LLMRunFrame()])
            start_sent = slow_service.forwarded_at[START]
            assert start_sent - began >= DELAY
            # Everything sent at the start reached the end of the pipeline before the slow network even passed
            # the start on to the service.
            passed = [at for at, frame in bot.arrivals.at if any(frame is s for s in (audio, sent[1]))]
            assert len(passed) == 2 and max(passed) < start_sent
            # The first LLM run did not wait either: it ran without the context, which was not there yet ...
            assert bot.llm.runs[0][0] < start_sent and HEADING not in bot.llm.texts(0)
            # ... and the run after the answer has it.
            assert bot.memory.start_outcome == "context"
            assert HEADING in bot.llm.texts(len(bot.llm.runs) - 1)

    asyncio.run(call())


def test_a_greeting_cancelled_while_it_waits_leaves_the_start_running(
    service: ServiceProcess, slow_service: SlowProxy, account: Account
) -> None:
    caller = known_caller(service.url, account.api_key)

    async def call() -> None:
        async with AsyncCallerContextClient(slow_service.url, account.api_key) as callers:
            bot = build_bot(callers, new_line(caller.ani), start_budget=BUDGET)
            greeting = asyncio.ensure_future(bot.caller_context.context_ready())
            await asyncio.sleep(0.1)
            greeting.cancel()  # the caller hung up during the greeting
            assert (await bot.memory.start()) is not None
            assert bot.memory.start_outcome == "context"

    asyncio.run(call())
