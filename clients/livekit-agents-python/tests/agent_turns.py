"""One caller turn through a real livekit-agents AgentSession, its model the scripted stand-in for the provider."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from livekit.agents import Agent, AgentSession
from livekit.agents.voice.run_result import RunResult

from caller_context_livekit import CallMemory

from scripted_llm import ScriptedLLM


async def caller_says(
    memory: CallMemory, said: str, tool_call: tuple[str, Mapping[str, Any]] | None = None
) -> tuple[ScriptedLLM, str | None]:
    """Runs one turn in which the caller says `said` (and the model makes `tool_call`, if given). Returns the model,
    which holds every context it was sent, and the tool's output as the model got it, or without a tool call what the
    agent answered."""
    model = ScriptedLLM({said: tool_call} if tool_call else None)
    async with AgentSession(llm=model) as session:
        await session.start(Agent(instructions=memory.instructions("You are a support agent."), tools=memory.tools))
        result: RunResult[None] = await session.run(user_input=said)
        if tool_call is None:
            return model, result.expect.contains_message(role="assistant").event().item.text_content
        result.expect.contains_function_call(name=tool_call[0])
        return model, result.expect.contains_function_call_output().event().item.output
