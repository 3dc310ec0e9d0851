"""The function tools the LLM is given, as livekit-agents `function_tool`s.

What a caller says about who they are is a claim: `identify_caller` hands it on as hints, and the code behind it
(CallMemory) sends it verified only when the application's own check says so, never on the caller's word. The model
has no argument with which to say "verified".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Annotated

from livekit.agents import function_tool, llm
from pydantic import BaseModel, Field

from caller_context import CallerClaim
from caller_context import agent_tools as words
from caller_context.inputs import IntentStatus


@dataclass(frozen=True)
class CallOutcome:
    intent: str
    status: IntentStatus
    variables: Mapping[str, str]
    summary: str | None


class RememberedFact(BaseModel):
    name: str = Field(description="snake_case name, e.g. preferred_name")
    value: str


def create_call_tools(
    identify: Callable[[CallerClaim], Awaitable[str]],
    record: Callable[[CallOutcome], None],
) -> list[llm.Tool | llm.Toolset]:
    """`identify_caller` and `record_call_outcome`, for `Agent(tools=...)` (the list type Agent takes)."""

    async def identify_caller(
        account_number: Annotated[str | None, Field(description=words.ACCOUNT_NUMBER_DESCRIPTION)],
        phone_number: Annotated[str | None, Field(description=words.PHONE_NUMBER_DESCRIPTION)],
    ) -> str:
        if not account_number and not phone_number:
            return words.ASK_WHO
        return await identify(CallerClaim(account_number=account_number or None, phone_number=phone_number or None))

    async def record_call_outcome(
        intent: Annotated[str, Field(description=words.INTENT_DESCRIPTION)],
        status: Annotated[IntentStatus, Field(description=words.STATUS_DESCRIPTION)],
        variables: Annotated[list[RememberedFact] | None, Field(description=words.VARIABLES_DESCRIPTION)] = None,
        summary: Annotated[str | None, Field(description=words.SUMMARY_DESCRIPTION)] = None,
    ) -> str:
        facts = {fact.name: fact.value for fact in variables or ()}
        record(CallOutcome(intent=intent, status=status, variables=facts, summary=summary or None))
        return words.RECORDED

    return [
        function_tool(identify_caller, name="identify_caller", description=words.IDENTIFY_DESCRIPTION),
        function_tool(record_call_outcome, name="record_call_outcome", description=words.RECORD_DESCRIPTION),
    ]
