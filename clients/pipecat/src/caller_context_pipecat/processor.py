"""The pipeline's side of a call's memory: a FrameProcessor that lets every frame through at once.

- StartFrame: the start is sent in the background; frames keep flowing while it is in flight.
- When the answer arrives (within the budget), the caller's context is put into the LLMContext the aggregators and
  the LLM service share, so every LLM run from then on reads it. A bot that speaks first awaits
  `context_ready()` (at most the budget) before queueing its first LLMRunFrame.
- EndFrame or CancelFrame: the end is sent once; cleanup() waits for it, so it is saved before the pipeline's
  worker finishes, and a pipeline torn down without either still ends the call.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from loguru import logger
from pipecat.frames.frames import CancelFrame, EndFrame, Frame, StartFrame
from pipecat.processors.aggregators.llm_context import LLMContext, LLMContextMessage
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from caller_context import CallContext

from .call_memory import CallMemory

ContextRole = Literal["developer", "system", "user"]


class CallerContextProcessor(FrameProcessor):
    """Place it after the transport's input: `Pipeline([transport.input(), caller_context, stt, ...])`.

    The context goes in as one message of `role` ("developer" by default: a note from the application, which
    providers without that role receive as a user message) after the context's leading system messages.
    """

    def __init__(self, memory: CallMemory, context: LLMContext, *, role: ContextRole = "developer") -> None:
        super().__init__()
        self.memory = memory
        self._context = context
        self._role = role

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self.memory.start().add_done_callback(self._inject)
        elif isinstance(frame, (EndFrame, CancelFrame)):
            self.memory.end()
        await self.push_frame(frame, direction)

    async def context_ready(self) -> CallContext | None:
        """Waits for the start (at most its budget): the answer, or None when the call goes on without context.

        A waiter that is cancelled (a caller who hangs up during the greeting) leaves the start running."""
        return await asyncio.shield(self.memory.start())

    async def cleanup(self) -> None:
        # pipecat leaves FrameProcessor.cleanup's return unannotated.
        await super().cleanup()  # type: ignore[no-untyped-call]
        try:
            # Shielded: a teardown cut short leaves the end running to its own deadline rather than losing it.
            await asyncio.shield(self.memory.end())
        except Exception as error:  # the end logs its own refusals; nothing may break the pipeline's teardown
            logger.error(f"caller context: the end failed: {error!r}")

    def _inject(self, start: asyncio.Task[CallContext | None]) -> None:
        if start.cancelled() or start.exception() is not None or start.result() is None:
            return
        message = _message(self._role, self.memory.context_text)
        messages = self._context.get_messages()
        leading = next((i for i, m in enumerate(messages) if not _is_system(m)), len(messages))
        self._context.set_messages([*messages[:leading], message, *messages[leading:]])


def _is_system(message: LLMContextMessage) -> bool:
    return isinstance(message, dict) and message.get("role") == "system"


def _message(role: ContextRole, text: str) -> LLMContextMessage:
    if role == "system":
        return {"role": "system", "content": text}
    if role == "user":
        return {"role": "user", "content": text}
    return {"role": "developer", "content": text}
