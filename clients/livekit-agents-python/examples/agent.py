"""A phone agent with a memory of its callers.

Run it as any LiveKit agent, with LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET set and a SIP trunk and
dispatch rule sending calls to it, plus CALLER_CONTEXT_URL and CALLER_CONTEXT_API_KEY:

    python agent.py start      # the worker, taking calls
    python agent.py console    # talk to it in the terminal (no SIP caller there: it answers without context)

It uses LiveKit Inference for STT, LLM and TTS.
"""

from __future__ import annotations

import os

from livekit.agents import Agent, AgentServer, AgentSession, JobContext, cli, inference

from caller_context import AsyncCallerContextClient
from caller_context_livekit import CallerClaim, SipStartOptions, start_call_memory

server = AgentServer()


async def pin_was_checked(claim: CallerClaim) -> bool:
    """Your own check that the caller is who they say (a PIN or a one-time code your system verified). Until there
    is one, every spoken account number identifies the caller unverified: details saved as needing verification
    stay held back."""
    return False


@server.rtc_session()
async def entrypoint(ctx: JobContext) -> None:
    client = AsyncCallerContextClient(
        os.environ.get("CALLER_CONTEXT_URL", "http://127.0.0.1:8080"), os.environ.get("CALLER_CONTEXT_API_KEY", "")
    )
    ctx.add_shutdown_callback(client.aclose)
    # Waits for the SIP caller, starts the call within 800 ms (or goes on without context), and ends it from the
    # job's shutdown callbacks. The trunk maps the X-Account-Number header to the attribute sip.h.x-account-number.
    memory = await start_call_memory(
        ctx,
        client,
        verify_caller=pin_was_checked,
        sip=SipStartOptions(external_ids={"account_number": "sip.h.x-account-number"}),
    )
    session: AgentSession[None] = AgentSession(
        stt=inference.STT(model="deepgram/nova-3", language="en"),
        llm=inference.LLM(model="openai/gpt-4.1-mini"),
        tts=inference.TTS(model="cartesia/sonic-3", voice="9626c31c-bec5-4cca-baa8-f8ba9e84c8bc"),
    )
    await session.start(
        room=ctx.room,
        agent=Agent(
            instructions=memory.instructions(
                "You answer the phone for Acme Broadband support. Be brief. Before the call ends, call "
                "record_call_outcome with the topic of the call and a one-sentence summary."
            ),
            tools=memory.tools,
        ),
    )
    await session.generate_reply(instructions="Greet the caller; if you know their name, use it.")


if __name__ == "__main__":
    cli.run_app(server)
