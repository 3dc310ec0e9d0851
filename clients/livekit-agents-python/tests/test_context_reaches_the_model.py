"""Use what the service gives: earlier calls' summaries, open topics, variables and the names of held-back variables
reach the model before its first answer; the trunk's STIR/SHAKEN headers reach the start."""

from __future__ import annotations

import asyncio
import re
import uuid

from callers import ROOMY_START_BUDGET, new_number, sip_attributes
from livekit.agents import Agent, AgentSession, llm

from caller_context import AsyncCallerContextClient, IdentityHints, IntentUpdate, ValidationError, VariableUpdate
from caller_context_livekit import CallMemory, SipStartOptions

from livekit_fakes import sip_caller
from scripted_llm import ScriptedLLM
from service import Account, ServiceProcess


async def a_customer_with_history(client: AsyncCallerContextClient, ani: str) -> str:
    earlier = await client.start(f"c-{uuid.uuid4()}", IdentityHints(ani=ani))
    await client.end(
        earlier.call_id,
        customer_ref=earlier.customer_ref,
        intent_updates=[IntentUpdate(intent="router_replacement", status="open")],
        variable_updates={
            "preferred_name": VariableUpdate(value="Ann"),
            "balance_owed": VariableUpdate(value="eur_1234", requires_verification=True),
        },
        summary="Router ordered; arrives Friday.",
    )
    return earlier.customer_ref


def test_summaries_topics_variables_and_held_back_names_reach_the_model_before_its_first_answer(
    service: ServiceProcess, account: Account
) -> None:
    async def scenario() -> None:
        ani = new_number()
        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            customer_ref = await a_customer_with_history(client, ani)
            memory = CallMemory(client, sip_caller(sip_attributes(ani)), start_budget=ROOMY_START_BUDGET)
            started = await memory.start()
            assert started is not None and started.customer_ref == customer_ref

            for agent in (
                Agent(instructions=memory.instructions("You are a support agent.")),
                Agent(instructions="You are a support agent.", chat_ctx=memory.chat_context()),
            ):
                model = ScriptedLLM()
                async with AgentSession(llm=model) as session:
                    await session.start(agent)
                    await session.run(user_input="Hi, it's me again")
                first = model.requests[0]
                system = "\n".join(
                    item.text_content or ""
                    for item in first.items
                    if isinstance(item, llm.ChatMessage) and item.role == "system"
                )
                assert re.search(
                    r"Earlier calls, newest first:\n- \d{4}-\d\d-\d\d: Router ordered; arrives Friday\.", system
                )
                assert "Open topics from earlier calls:\n- router_replacement" in system
                assert "- preferred_name: Ann" in system
                assert (
                    "Held back until the caller is verified (do not guess them; ask the caller to verify to hear them):"
                    " balance_owed" in system
                )
                assert "eur_1234" not in model.seen_by_model()

    asyncio.run(scenario())


def test_the_trunks_stir_shaken_headers_reach_the_start_as_verstat_and_attestation(
    service: ServiceProcess, account: Account
) -> None:
    async def scenario() -> None:
        sip = SipStartOptions(verstat_attribute="sip.h.x-twilio-verstat", attestation_attribute="sip.h.x-attestation")
        refusals: list[BaseException] = []
        async with AsyncCallerContextClient(service.url, account.api_key) as client:

            async def start_with(verstat: str, attestation: str) -> bool:
                attributes = sip_attributes(new_number(), x_twilio_verstat=verstat, x_attestation=attestation)
                memory = CallMemory(
                    client,
                    sip_caller(attributes),
                    sip=sip,
                    start_budget=ROOMY_START_BUDGET,
                    on_start_failed=refusals.append,
                )
                return await memory.start() is not None

            assert await start_with("TN-Validation-Passed-A", "a")
            # A form the service does not know is refused: proof that each header is sent as what it is.
            assert not await start_with("pigeon-post", "a")
            assert not await start_with("TN-Validation-Passed-A", "maybe")
        paths = [[issue.path for issue in error.issues] for error in refusals if isinstance(error, ValidationError)]
        assert paths == [[("telco", "verstat")], [("telco", "attestation")]]

    asyncio.run(scenario())
