"""Caller Context for LiveKit Agents (Python): the SIP caller's memory, under the rules of docs/integrations.md."""

from caller_context import CallerClaim, RenderOptions, render_caller_context

from .call_memory import DEFAULT_START_BUDGET_S, CallMemory, HasAttributes, HasShutdownCallbacks
from .call_tools import CallOutcome, RememberedFact, create_call_tools
from .job_memory import start_call_memory, wait_for_sip_caller
from .sip_attributes import NotASipCallerError, SipStart, SipStartOptions, start_request_from_sip

__all__ = [
    "DEFAULT_START_BUDGET_S",
    "CallMemory",
    "CallOutcome",
    "CallerClaim",
    "HasAttributes",
    "HasShutdownCallbacks",
    "NotASipCallerError",
    "RememberedFact",
    "RenderOptions",
    "SipStart",
    "SipStartOptions",
    "create_call_tools",
    "render_caller_context",
    "start_call_memory",
    "start_request_from_sip",
    "wait_for_sip_caller",
]
