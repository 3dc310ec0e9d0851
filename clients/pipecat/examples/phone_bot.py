"""A phone bot that remembers its callers: Twilio or Telnyx media streams, or Daily dial-in, through pipecat's
development runner, with OpenAI for speech-to-text, the LLM and text-to-speech.

    pip install ./clients/python ./clients/pipecat "pipecat-ai[websocket,runner]"
    export OPENAI_API_KEY=sk-... CALLER_CONTEXT_URL=http://127.0.0.1:8080 CALLER_CONTEXT_API_KEY=sk_test_...
    export TWILIO_ACCOUNT_SID=AC... TWILIO_AUTH_TOKEN=...    # or TELNYX_API_KEY: the runner hangs up with them
    python clients/pipecat/examples/phone_bot.py -t twilio -x your-public-host.example    # or -t telnyx

Twilio: answer the call with your own TwiML, so the stream carries the caller (the runner's own TwiML has no
parameters): <Connect><Stream url="wss://your-public-host.example/ws"><Parameter name="from_number"
value="{From}"/><Parameter name="to_number" value="{To}"/><Parameter name="verstat" value="{StirVerstat}"/>
</Stream></Connect>, with {From}, {To} and {StirVerstat} filled from Twilio's incoming-call webhook.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from pipecat.audio.vad.silero import SileroVADAnalyzer
from pipecat.frames.frames import LLMRunFrame
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineParams, PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.runner.types import DailyRunnerArguments, RunnerArguments
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.services.openai.stt import OpenAISTTService
from pipecat.services.openai.tts import OpenAITTSService
from pipecat.transports.base_transport import BaseTransport
from pipecat.workers.runner import WorkerRunner

from caller_context import AsyncCallerContextClient
from caller_context_pipecat import (
    CallerClaim,
    CallerContextProcessor,
    CallLine,
    CallMemory,
    NotAPhoneCallError,
    create_call_tools,
    line_from_call_data,
    line_from_daily_dialin,
)

INSTRUCTIONS = (
    "You answer the phone for Example Co. Keep answers short: they are spoken. Before the call ends, call "
    "record_call_outcome with the caller's topic, whether it was resolved, and a one-sentence summary."
)


async def verify_caller(claim: CallerClaim) -> bool:
    """Your own check that the caller is who they say (a PIN they typed, a one-time code you sent them).
    This example has none, so every claim stays a hint: nothing held back is released on the caller's word."""
    return False


@dataclass
class PhoneBot:
    worker: PipelineWorker
    pipeline: Pipeline
    context: LLMContext
    caller_context: CallerContextProcessor


def build_bot(transport: BaseTransport, line: CallLine | None, callers: AsyncCallerContextClient) -> PhoneBot:
    """The pipeline: the caller's context goes into the LLM context while audio already flows."""
    api_key = os.environ.get("OPENAI_API_KEY", "")
    memory = CallMemory(callers, line, verify_caller=verify_caller)
    context = LLMContext(tools=create_call_tools(memory))
    user, assistant = LLMContextAggregatorPair(
        context, user_params=LLMUserAggregatorParams(vad_analyzer=SileroVADAnalyzer())
    )
    caller_context = CallerContextProcessor(memory, context)
    llm = OpenAILLMService(api_key=api_key, settings=OpenAILLMService.Settings(system_instruction=INSTRUCTIONS))
    pipeline = Pipeline(
        [
            transport.input(),
            caller_context,
            OpenAISTTService(api_key=api_key),
            user,
            llm,
            OpenAITTSService(api_key=api_key),
            transport.output(),
            assistant,
        ]
    )
    worker = PipelineWorker(pipeline, params=PipelineParams(audio_in_sample_rate=8000, audio_out_sample_rate=8000))

    async def greet(_transport: BaseTransport, _client: object) -> None:
        # The greeting waits for the caller's context, at most the start's budget; audio is not held meanwhile.
        await caller_context.context_ready()
        await worker.queue_frame(LLMRunFrame())

    async def hang_up(_transport: BaseTransport, _client: object) -> None:
        await worker.cancel()  # the CancelFrame ends the call at the service, once

    # add_event_handler rather than the decorator: pipecat leaves the decorator unannotated, and mypy --strict
    # would call the handlers untyped.
    transport.add_event_handler("on_client_connected", greet)
    transport.add_event_handler("on_client_disconnected", hang_up)

    return PhoneBot(worker, pipeline, context, caller_context)


def line_of(runner_args: RunnerArguments) -> CallLine | None:
    """The call, from what the runner parsed: a websocket's first messages, or a Daily dial-in body."""
    try:
        if isinstance(runner_args, DailyRunnerArguments):
            return line_from_daily_dialin(runner_args.body)
        return line_from_call_data(getattr(runner_args, "transport_type", ""), runner_args.call_data)
    except NotAPhoneCallError:
        return None  # a web client: the bot talks without caller memory


async def bot(runner_args: RunnerArguments) -> None:
    """The runner's entry point, one call per run."""
    # Imported here: each transport needs its own pipecat extra (websocket, daily), and the runner's only.
    from pipecat.runner.utils import create_transport
    from pipecat.transports.base_transport import TransportParams
    from pipecat.transports.websocket.fastapi import FastAPIWebsocketParams

    def daily_params() -> TransportParams:
        from pipecat.transports.daily.transport import DailyParams

        return DailyParams(audio_in_enabled=True, audio_out_enabled=True)  # the runner adds the dial-in settings

    transport = await create_transport(
        runner_args,
        {
            "twilio": lambda: FastAPIWebsocketParams(audio_in_enabled=True, audio_out_enabled=True),
            "telnyx": lambda: FastAPIWebsocketParams(audio_in_enabled=True, audio_out_enabled=True),
            "daily": daily_params,
        },
    )
    callers = AsyncCallerContextClient(os.environ["CALLER_CONTEXT_URL"], os.environ["CALLER_CONTEXT_API_KEY"])
    async with callers:
        phone_bot = build_bot(transport, line_of(runner_args), callers)
        runner = WorkerRunner(handle_sigint=runner_args.handle_sigint)
        await runner.add_workers(phone_bot.worker)
        await runner.run()


if __name__ == "__main__":
    from pipecat.runner.run import main

    main()
