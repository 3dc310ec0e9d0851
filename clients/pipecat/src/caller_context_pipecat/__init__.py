"""Caller Context for pipecat: the caller's memory in the LLM context, never holding the call."""

from caller_context import CallerClaim, RenderOptions, VerifyCaller, render_caller_context

from .call_line import (
    CallLine,
    NotAPhoneCallError,
    line_from_call_data,
    line_from_daily_dialin,
    line_from_telnyx_start,
    line_from_twilio_start,
)
from .call_memory import DEFAULT_START_BUDGET_S, CallMemory
from .call_tools import create_call_tools
from .processor import CallerContextProcessor
from .start_outcome import START_OUTCOMES, StartOutcome

__all__ = [
    "DEFAULT_START_BUDGET_S",
    "START_OUTCOMES",
    "CallLine",
    "CallMemory",
    "CallerClaim",
    "CallerContextProcessor",
    "NotAPhoneCallError",
    "RenderOptions",
    "StartOutcome",
    "VerifyCaller",
    "create_call_tools",
    "line_from_call_data",
    "line_from_daily_dialin",
    "line_from_telnyx_start",
    "line_from_twilio_start",
    "render_caller_context",
]
