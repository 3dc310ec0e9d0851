"""The caller's context as text an LLM reads, in the words of the LiveKit integration (context-rendering.ts), for
every Python voice-agent integration (caller-context-livekit, caller-context-pipecat) to give its model.

Who the service thinks the caller is and how to treat that, what earlier calls left open, the stored variables, the
names of those held back until the caller is verified (never their values: the service does not send them), and the
summaries of the latest calls. Every section can be narrowed or the whole text replaced (`render`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .models import CallContext

GUIDANCE = {
    "reuse": "Known caller: use the context below without asking them to prove who they are.",
    "confirm": (
        "Probably this caller: confirm who they are (for example their account number) before using the context "
        "below, then call identify_caller."
    ),
    "ignore": (
        "New or unrecognised caller: no stored context. If they give an account number or other identifier, "
        "call identify_caller."
    ),
}

LEVELS = {"low": "low", "medium": "medium", "high": "high", "very_high": "very high"}


@dataclass(frozen=True)
class RenderOptions:
    summary_variable: str = "last_call_summary"
    """A variable shown apart as "Summary of the last call" (summaries saved as a variable before ends carried
    them)."""
    include_variable: Callable[[str], bool] | None = None
    """Which variables to show (default: all)."""
    heading: str = "# Caller context"
    """The first line."""
    render: Callable[[CallContext], str] | None = None
    """Replaces the whole text."""


def render_caller_context(answer: CallContext, options: RenderOptions | None = None) -> str:
    options = options or RenderOptions()
    if options.render is not None:
        return options.render(answer)
    include = options.include_variable or (lambda _name: True)
    identity = answer.identity
    level = LEVELS.get(identity.level or "", "unknown")
    guidance = GUIDANCE.get(identity.recommendation or "ignore", GUIDANCE["ignore"])
    lines = [options.heading, f"Identity: {level} confidence ({identity.confidence:.2f}). {guidance}"]
    if answer.open_intents:
        lines.append("Open topics from earlier calls:")
        for open_intent in answer.open_intents:
            attempts = f" (raised in {open_intent.attempt_count} calls)" if open_intent.attempt_count > 1 else ""
            lines.append(f"- {open_intent.intent}{attempts}")
    variables = [
        (name, variable)
        for name, variable in answer.variables.items()
        if name != options.summary_variable and include(name)
    ]
    if variables:
        lines.append("Known about the caller:")
        lines.extend(f"- {name}: {variable.value}" for name, variable in variables)
    if answer.held_back_variables:
        lines.append(
            "Held back until the caller is verified (do not guess them; ask the caller to verify to hear them): "
            + ", ".join(answer.held_back_variables)
        )
    if answer.recent_calls:
        lines.append("Earlier calls, newest first:")
        for call in answer.recent_calls:
            day = "" if call.call_end is None else f"{call.call_end.date().isoformat()}: "
            lines.append(f"- {day}{call.summary}")
    summary = answer.variables.get(options.summary_variable)
    if summary is not None and summary.value:
        lines.append(f"Summary of the last call: {summary.value}")
    return "\n".join(lines)
