"""A stand-in for the LLM provider (the outside world), plugged into livekit-agents as any `llm.LLM` plugin is.

It answers the way a model would: for a user turn it has a script for, it calls the scripted tool; after a tool's
output, or for any other turn, it says a short sentence. Every ChatContext the framework sends it is kept, so the
tests read exactly what the model was given: instructions, earlier messages and tool outputs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from livekit.agents import APIConnectOptions, llm
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, NotGivenOr

REPLY = "Thanks, I can help with that."


class ScriptedLLM(llm.LLM[None]):
    def __init__(self, tool_calls: Mapping[str, tuple[str, Mapping[str, Any]]] | None = None) -> None:
        super().__init__()
        self._tool_calls = dict(tool_calls or {})
        self.requests: list[llm.ChatContext] = []

    def chat(
        self,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool] | None = None,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
        parallel_tool_calls: NotGivenOr[bool] = NOT_GIVEN,
        tool_choice: NotGivenOr[llm.ToolChoice] = NOT_GIVEN,
        extra_kwargs: NotGivenOr[dict[str, Any]] = NOT_GIVEN,
    ) -> llm.LLMStream:
        self.requests.append(chat_ctx.copy())
        last = chat_ctx.items[-1] if chat_ctx.items else None
        said = last.text_content if isinstance(last, llm.ChatMessage) and last.role == "user" else None
        scripted = self._tool_calls.get(said or "")
        delta = (
            llm.ChoiceDelta(
                role="assistant",
                tool_calls=[
                    llm.FunctionToolCall(
                        name=scripted[0], arguments=json.dumps(scripted[1]), call_id=f"call_{len(self.requests)}"
                    )
                ],
            )
            if scripted is not None
            else llm.ChoiceDelta(role="assistant", content=REPLY)
        )
        return _ScriptedStream(self, chat_ctx=chat_ctx, tools=tools or [], conn_options=conn_options, delta=delta)

    def seen_by_model(self) -> str:
        """Every text the model was given, in every request: instructions, messages and tool outputs."""
        texts: list[str] = []
        for request in self.requests:
            for item in request.items:
                if isinstance(item, llm.ChatMessage):
                    texts.append(item.text_content or "")
                elif isinstance(item, llm.FunctionCallOutput):
                    texts.append(item.output)
        return "\n".join(texts)


class _ScriptedStream(llm.LLMStream):
    def __init__(
        self,
        model: ScriptedLLM,
        *,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool],
        conn_options: APIConnectOptions,
        delta: llm.ChoiceDelta,
    ) -> None:
        super().__init__(model, chat_ctx=chat_ctx, tools=tools, conn_options=conn_options)
        self._delta = delta

    async def _run(self) -> None:
        self._event_ch.send_nowait(llm.ChatChunk(id="scripted", delta=self._delta))
