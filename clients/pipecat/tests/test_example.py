"""The example bot imports and builds its pipeline as written: the caller-context processor right after the
transport's input, its tools advertised in the LLM context, an OpenAI LLM told nothing of a key it was not given."""

from __future__ import annotations

import asyncio
from typing import Any

import phone_bot
import pytest
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.runner.types import DailyRunnerArguments, WebSocketRunnerArguments
from pipecat.serializers.twilio import TwilioFrameSerializer
from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams, FastAPIWebsocketTransport
from test_call_line import TWILIO_START, parsed

from caller_context import AsyncCallerContextClient
from caller_context_pipecat import CallLine


class ProviderSocket:
    """Twilio's end of the media stream's websocket; nothing is sent or read while the pipeline is only built."""

    client_state: Any = None
    application_state: Any = None
    headers: dict[str, str] = {}  # noqa: RUF012  (the attribute FastAPI's WebSocket has)


def test_the_example_builds_its_pipeline_with_the_processor_after_the_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-used")
    transport = FastAPIWebsocketTransport(
        ProviderSocket(),  # type: ignore[arg-type]
        FastAPIWebsocketParams(
            serializer=TwilioFrameSerializer("MZ123", params=TwilioFrameSerializer.InputParams(auto_hang_up=False))
        ),
    )
    line = parsed({"event": "connected"}, TWILIO_START)

    async def build() -> None:
        async with AsyncCallerContextClient("http://127.0.0.1:9", "sk_test_example") as callers:
            bot = phone_bot.build_bot(transport, line, callers)
            # The pipeline's own source and sink stand around what the example lists.
            processors = bot.pipeline.processors[1:-1]
            assert processors[0] is transport.input() and processors[1] is bot.caller_context
            assert bot.caller_context.memory.start_outcome is None  # nothing is sent before the pipeline starts
            tools = bot.context.tools
            assert isinstance(tools, ToolsSchema)
            assert [tool.name for tool in tools.standard_tools] == ["identify_caller", "record_call_outcome"]

    asyncio.run(build())


def test_the_example_reads_the_call_from_the_runners_arguments() -> None:
    body = {"dialin_settings": {"call_id": "d-1", "call_domain": "dom", "From": "+14155550125"}}
    assert phone_bot.line_of(DailyRunnerArguments(room_url="https://x.daily.co/r", body=body)) == CallLine(
        "daily-d-1", "+14155550125"
    )
    websocket = WebSocketRunnerArguments(websocket=ProviderSocket())  # type: ignore[arg-type]
    assert phone_bot.line_of(websocket) is None  # a web client: no phone call
