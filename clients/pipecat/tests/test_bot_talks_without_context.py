"""A service that is slow, refuses or is down leaves the bot talking without context: logged, counted, and the
start never sent again."""

from __future__ import annotations

import asyncio
import time

from customers import known_caller
from net_fakes import closed_port_url
from pipecat.frames.frames import LLMRunFrame, TextFrame
from pipecat.tests.utils import SleepFrame

from caller_context import AsyncCallerContextClient
from caller_context_pipecat import DEFAULT_START_BUDGET_S, START_OUTCOMES, CallLine, StartOutcome

from pipelines import HEADING, Bot, build_bot, new_line, run_call
from service import Account, Admin, ServiceProcess
from slow_proxy import SlowProxy

START, END = "/v1/calls/start", "/v1/calls/end"


def talk(url: str, api_key: str, ani: str) -> Bot:
    """One call: a line of text at once, the greeting once the start is over, another LLM run later."""

    async def call() -> Bot:
        async with AsyncCallerContextClient(url, api_key) as callers:
            bot = build_bot(callers, new_line(ani), greet=True, start_budget=DEFAULT_START_BUDGET_S)
            await run_call(bot.pipeline, [TextFrame("hello"), SleepFrame(sleep=1.2), LLMRunFrame()])
            return bot

    return asyncio.run(call())


def greeting_waited(bot: Bot, proxy: SlowProxy) -> float:
    """From the start reaching the network to the greeting's LLM run."""
    return bot.llm.runs[0][0] - proxy.received_at[START]


def assert_talked_without_context(bot: Bot, outcome: StartOutcome, counted_before: int) -> None:
    assert bot.memory.start_outcome == outcome
    assert START_OUTCOMES[outcome] == counted_before + 1
    # The greeting and the later turn both ran, and the bot answered, with no caller context.
    assert len(bot.llm.runs) == 2
    assert HEADING not in bot.llm.all_texts()
    assert any(isinstance(frame, TextFrame) and frame.text == "hello" for _, frame in bot.arrivals.at)


def test_a_service_slower_than_the_budget_is_given_up_at_the_budget_and_never_asked_again(
    service: ServiceProcess, account: Account
) -> None:
    caller = known_caller(service.url, account.api_key)
    proxy = SlowProxy(service.url, delay=2.0)
    try:
        counted = START_OUTCOMES["late"]
        bot = talk(proxy.url, account.api_key, caller.ani)
        assert_talked_without_context(bot, "late", counted)
        # The greeting waited for the budget (0.8 s), not for the service (2 s).
        assert 0.7 <= greeting_waited(bot, proxy) < 2.0
        time.sleep(1.0)  # past the slow network's delay: the start it held has reached the service by now
        # The start may have landed, so it was sent once; and with no answer there is no call known to end.
        assert proxy.requests[START] == 1 and proxy.requests[END] == 0
    finally:
        proxy.close()


def test_an_exhausted_quota_402_leaves_the_bot_talking_without_context(
    service: ServiceProcess, admin: Admin, account: Account
) -> None:
    caller = known_caller(service.url, account.api_key)
    admin.set_quota(account.account_id, 0)
    proxy = SlowProxy(service.url)
    try:
        counted = START_OUTCOMES["refused"]
        bot = talk(proxy.url, account.api_key, caller.ani)
        assert_talked_without_context(bot, "refused", counted)
        assert proxy.requests[START] == 1 and proxy.requests[END] == 0
    finally:
        proxy.close()


def test_a_service_answering_503_leaves_the_bot_talking_without_context(
    service: ServiceProcess, account: Account
) -> None:
    caller = known_caller(service.url, account.api_key)
    proxy = SlowProxy(service.url, refuse=True)
    try:
        counted = START_OUTCOMES["refused"]
        bot = talk(proxy.url, account.api_key, caller.ani)
        assert_talked_without_context(bot, "refused", counted)
        # The 503's Retry-After (1 s) ends past the budget: no retry, no wait for one.
        assert proxy.requests[START] == 1 and greeting_waited(bot, proxy) < 1.0
    finally:
        proxy.close()


def test_a_service_that_is_down_leaves_the_bot_talking_without_context(
    service: ServiceProcess, account: Account
) -> None:
    counted = START_OUTCOMES["down"]
    bot = talk(closed_port_url(), account.api_key, "+14155550177")
    assert_talked_without_context(bot, "down", counted)


def test_a_call_without_the_callers_number_talks_without_context_and_asks_nothing(
    service: ServiceProcess, account: Account
) -> None:
    proxy = SlowProxy(service.url)
    try:
        counted = START_OUTCOMES["no_caller"]

        async def call() -> Bot:
            async with AsyncCallerContextClient(proxy.url, account.api_key) as callers:
                # A Twilio stream whose TwiML passed no from_number.
                bot = build_bot(callers, CallLine("twilio-CA-no-number"), greet=True)
                await run_call(bot.pipeline, [TextFrame("hello"), SleepFrame(sleep=0.3), LLMRunFrame()])
                return bot

        bot = asyncio.run(call())
        assert_talked_without_context(bot, "no_caller", counted)
        assert proxy.requests == {}
    finally:
        proxy.close()
