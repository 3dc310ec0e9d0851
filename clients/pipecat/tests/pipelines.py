"""The pipelines the tests push frames through with pipecat's own `run_test`: the caller-context processor, the
aggregators of one shared LLMContext, and a scripted LLM service standing in for the provider (the outside world).
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pipecat.frames.frames import (
    Frame,
    FunctionCallFromLLM,
    LLMContextFrame,
    LLMFullResponseEndFrame,
    LLMFullResponseStartFrame,
    LLMRunFrame,
    StartFrame,
    TextFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.aggregators.llm_context import LLMContext, LLMContextMessage
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import LLMService
from pipecat.tests.utils import run_test

from caller_context import AsyncCallerContextClient
from caller_context_pipecat import CallerContextProcessor, CallLine, CallMemory, VerifyCaller, create_call_tools

ToolCall = tuple[str, dict[str, Any]]

HEADING = "# Caller context"


class ScriptedLLM(LLMService):
    """Answers each run with the next scripted batch of tool calls, or with a line of text when none is left,
    and keeps what every run was given: the messages as the provider would receive them, and when."""

    def __init__(self, script: Sequence[Sequence[ToolCall]] = ()) -> None:
        super().__init__()
        self._script = [list(batch) for batch in script]
        self.runs: list[tuple[float, list[LLMContextMessage]]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, LLMContextFrame):
            await self.push_frame(frame, direction)
            return
        self.runs.append((time.monotonic(), copy.deepcopy(frame.context.get_messages())))
        if self._script:
            calls = [
                FunctionCallFromLLM(
                    function_name=name,
                    tool_call_id=f"call_{uuid.uuid4().hex[:8]}",
                    arguments=args,
                    context=frame.context,
                )
                for name, args in self._script.pop(0)
            ]
            await self.run_function_calls(calls)
            return
        await self.push_frame(LLMFullResponseStartFrame())
        await self.push_frame(TextFrame("How can I help?"))
        await self.push_frame(LLMFullResponseEndFrame())

    def texts(self, run: int) -> str:
        """All the text of one run's messages, as one string."""
        return json.dumps(self.runs[run][1])

    def all_texts(self) -> str:
        return json.dumps([messages for _, messages in self.runs])


class Greeter(FrameProcessor):
    """The bot's greeting as the example queues it on the transport's on_client_connected: it waits for the
    caller's context (at most the start's budget), then runs the LLM."""

    def __init__(self, caller_context: CallerContextProcessor) -> None:
        super().__init__()
        self._caller_context = caller_context
        self._task: asyncio.Task[None] | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self._task = asyncio.ensure_future(self._greet())

    async def _greet(self) -> None:
        await self._caller_context.context_ready()
        await self.push_frame(LLMRunFrame())


class Arrivals(FrameProcessor):
    """Notes when each frame reached the end of the pipeline."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[tuple[float, Frame]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        self.at.append((time.monotonic(), frame))
        await self.push_frame(frame, direction)


@dataclass
class Bot:
    memory: CallMemory
    context: LLMContext
    caller_context: CallerContextProcessor
    llm: ScriptedLLM
    arrivals: Arrivals
    pipeline: Pipeline
    extra: list[FrameProcessor] = field(default_factory=list)


def build_bot(
    callers: AsyncCallerContextClient,
    line: CallLine | None,
    *,
    script: Sequence[Sequence[ToolCall]] = (),
    verify_caller: VerifyCaller | None = None,
    start_budget: float = 5.0,
    greet: bool = False,
) -> Bot:
    """A bot on a pipeline of its own. The budget is generous, so a busy machine never turns a test about
    something else into one about a late start; the tests of the budget give the real one (0.8 s)."""
    memory = CallMemory(callers, line, verify_caller=verify_caller, start_budget=start_budget)
    context = LLMContext(tools=create_call_tools(memory))
    user, assistant = LLMContextAggregatorPair(context)
    caller_context = CallerContextProcessor(memory, context)
    llm = ScriptedLLM(script)
    arrivals = Arrivals()
    greeter: list[FrameProcessor] = [Greeter(caller_context)] if greet else []
    pipeline = Pipeline([caller_context, *greeter, arrivals, user, llm, assistant])
    return Bot(memory, context, caller_context, llm, arrivals, pipeline)


async def run_call(pipeline: Pipeline, frames: Sequence[Frame], *, send_end_frame: bool = True) -> None:
    """pipecat's run_test, with room for a busy machine to start the pipeline (its default is 1 s), and a limit
    that fails a test whose pipeline never ends rather than hanging the run."""
    await asyncio.wait_for(
        run_test(pipeline, frames_to_send=frames, send_end_frame=send_end_frame, start_timeout=10.0), timeout=60.0
    )


def new_line(ani: str) -> CallLine:
    return CallLine(call_id=f"pc-{uuid.uuid4()}", ani=ani)
