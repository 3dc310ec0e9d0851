"""The call's memory for a LiveKit job: wait for the SIP caller, start within the budget, end at shutdown."""

from __future__ import annotations

from typing import Any

from livekit import rtc
from livekit.agents import JobContext

from caller_context import AsyncCallerContextClient

from .call_memory import CallMemory


async def wait_for_sip_caller(ctx: JobContext) -> rtc.RemoteParticipant | None:
    """The SIP caller's participant, once it has joined: waiting for it, rather than reading the room's participants
    when the job starts, is what gives the caller's number before the first turn (livekit/agents#2510). None in
    console mode, where no one dials in."""
    if ctx.is_fake_job():
        return None
    return await ctx.wait_for_participant(kind=rtc.ParticipantKind.PARTICIPANT_KIND_SIP)


async def start_call_memory(ctx: JobContext, client: AsyncCallerContextClient, **options: Any) -> CallMemory:
    """Waits for the SIP caller, starts the call within the budget, and ends it from the job's shutdown callbacks.

    Never raises for the service: when it is late, refuses or is down, the memory holds no context and the agent
    answers anyway. `options` are CallMemory's (verify_caller, start_budget, on_start_failed, sip, rendering,
    identify_key).
    """
    memory = CallMemory(client, await wait_for_sip_caller(ctx), **options)
    memory.end_on_shutdown(ctx)
    await memory.start()
    return memory
