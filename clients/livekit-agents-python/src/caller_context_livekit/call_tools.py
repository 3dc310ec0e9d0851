"""The function tools the LLM is given, as livekit-agents `function_tool`s.

What a caller says about who they are is a claim: `identify_caller` hands it on as hints, and the code behind it
(CallMemory) sends it verified only when the application's own check says so, never on the caller's word. The model
has no argument with which to say "verified".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

from livekit.agents import function_tool, llm
from pydantic import BaseModel, Field

IntentStatus = Literal["open", "resolved"]


@dataclass(frozen=True)
class CallerClaim:
    """What the caller said about who they are, as the identify tool received it."""

    account_number: str | None = None
    phone_number: str | None = None


@dataclass(frozen=True)
class CallOutcome:
    intent: str
    status: IntentStatus
    variables: Mapping[str, str]
    summary: str | None


class RememberedFact(BaseModel):
    name: str = Field(description="snake_case name, e.g. preferred_name")
    value: str


IDENTIFY_DESCRIPTION = (
    "Call when the caller tells you who they are (their account number, or the phone number on their account). "
    "Returns what may be shared with them; details that need verification stay held back unless the "
    "application has verified the caller."
)
RECORD_DESCRIPTION = (
    "Record the topic of the call and whether it was resolved, plus facts worth remembering for the next call "
    "(not card numbers, passwords or national ids). Call it before the call ends; a later call replaces the topic's "
    "status."
)


def create_call_tools(
    identify: Callable[[CallerClaim], Awaitable[str]],
    record: Callable[[CallOutcome], None],
) -> list[llm.Tool | llm.Toolset]:
    """`identify_caller` and `record_call_outcome`, for `Agent(tools=...)` (the list type Agent takes)."""

    async def identify_caller(
        account_number: Annotated[str | None, Field(description="The account number the caller gave, if any")],
        phone_number: Annotated[
            str | None, Field(description="The phone number on the caller's account, in E.164, if given")
        ],
    ) -> str:
        if not account_number and not phone_number:
            return "Ask the caller for their account number or phone number first."
        return await identify(CallerClaim(account_number=account_number or None, phone_number=phone_number or None))

    async def record_call_outcome(
        intent: Annotated[str, Field(description="Short snake_case topic, e.g. billing_question")],
        status: Annotated[IntentStatus, Field(description="resolved when the caller's need was met during this call")],
        variables: Annotated[
            list[RememberedFact] | None, Field(description="Facts to remember, e.g. preferred_name")
        ] = None,
        summary: Annotated[
            str | None,
            Field(description="One or two sentences about this call, for whoever takes the caller's next call"),
        ] = None,
    ) -> str:
        facts = {fact.name: fact.value for fact in variables or ()}
        record(CallOutcome(intent=intent, status=status, variables=facts, summary=summary or None))
        return "Recorded."

    return [
        function_tool(identify_caller, name="identify_caller", description=IDENTIFY_DESCRIPTION),
        function_tool(record_call_outcome, name="record_call_outcome", description=RECORD_DESCRIPTION),
    ]
