"""The caller's context is in the LLM context before the first LLM run, with what the service gives."""

from __future__ import annotations

import asyncio

from customers import SECRET, SUMMARY, known_caller
from pipecat.tests.utils import SleepFrame

from caller_context import AsyncCallerContextClient

from pipelines import HEADING, build_bot, new_line, run_call
from service import Account, ServiceProcess


def test_a_greeting_bot_runs_the_llm_first_with_the_callers_context(service: ServiceProcess, account: Account) -> None:
    caller = known_caller(service.url, account.api_key)

    async def call() -> None:
        async with AsyncCallerContextClient(service.url, account.api_key) as callers:
            bot = build_bot(callers, new_line(caller.ani), greet=True)
            await run_call(bot.pipeline, [SleepFrame(sleep=3.0)])
            assert bot.memory.start_outcome == "context"
            assert len(bot.llm.runs) >= 1
            first = bot.llm.texts(0)
            assert HEADING in first
            # What the service gives reaches the model: the open topic, the variables, the earlier call's summary,
            # and the names (never the values) of those held back until the caller is verified.
            assert "billing_question" in first and "plan: gold" in first
            assert SUMMARY in first
            assert "ask the caller to verify to hear them): secret_word" in first
            assert SECRET not in first

    asyncio.run(call())
