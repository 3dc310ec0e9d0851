"""The two function tools the LLM is given, in the words of the LiveKit integration (call-tools.ts).

What a caller says about who they are is a claim: `identify_caller` sends it as hints, verified only when the
application's own check says so (CallMemory's `verify_caller`), never on the caller's word. Each schema carries
its handler, so an LLMContext advertising them registers them with the LLM service by itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.services.llm_service import FunctionCallParams

from caller_context import CallerClaim
from caller_context import agent_tools as words

from .call_memory import CallMemory


def create_call_tools(memory: CallMemory) -> ToolsSchema:
    """`identify_caller` and `record_call_outcome`, for `LLMContext(tools=...)`; with tools of your own:
    `ToolsSchema(standard_tools=[*your_tools, *create_call_tools(memory).standard_tools])`."""

    async def identify_caller(params: FunctionCallParams) -> None:
        claim = CallerClaim(
            account_number=_text(params.arguments.get("account_number")),
            phone_number=_text(params.arguments.get("phone_number")),
        )
        if claim.account_number is None and claim.phone_number is None:
            await params.result_callback(words.ASK_WHO)
            return
        await params.result_callback(await memory.identify(claim))

    async def record_call_outcome(params: FunctionCallParams) -> None:
        await params.result_callback(record_outcome(memory, params.arguments))

    identify = FunctionSchema(
        name="identify_caller",
        description=words.IDENTIFY_DESCRIPTION,
        properties={
            "account_number": {
                "type": ["string", "null"],
                "description": words.ACCOUNT_NUMBER_DESCRIPTION,
            },
            "phone_number": {
                "type": ["string", "null"],
                "description": words.PHONE_NUMBER_DESCRIPTION,
            },
        },
        required=["account_number", "phone_number"],
        handler=identify_caller,
    )
    record = FunctionSchema(
        name="record_call_outcome",
        description=words.RECORD_DESCRIPTION,
        properties={
            "intent": {"type": "string", "description": words.INTENT_DESCRIPTION},
            "status": {
                "type": "string",
                "enum": ["open", "resolved"],
                "description": words.STATUS_DESCRIPTION,
            },
            "variables": {
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
                    "required": ["name", "value"],
                },
                "description": words.VARIABLES_DESCRIPTION,
            },
            "summary": {
                "type": ["string", "null"],
                "description": words.SUMMARY_DESCRIPTION,
            },
        },
        required=["intent", "status", "variables", "summary"],
        handler=record_call_outcome,
    )
    return ToolsSchema(standard_tools=[identify, record])


def record_outcome(memory: CallMemory, arguments: Mapping[str, Any]) -> str:
    intent = _text(arguments.get("intent"))
    status = arguments.get("status")
    if intent is None or status not in ("open", "resolved"):
        return "Give the topic as intent and its status as open or resolved."
    memory.record_intent(intent, "open" if status == "open" else "resolved")
    for variable in arguments.get("variables") or ():
        name = _text(variable.get("name")) if isinstance(variable, Mapping) else None
        value = variable.get("value") if isinstance(variable, Mapping) else None
        if name is not None and isinstance(value, str):
            memory.set_variable(name, value)
    summary = _text(arguments.get("summary"))
    if summary is not None:
        memory.set_summary(summary)
    return words.RECORDED


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None
