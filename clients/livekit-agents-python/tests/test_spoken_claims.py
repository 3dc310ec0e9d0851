"""Verification is never the model's word: a spoken account number identifies the caller unverified, and what needs
verification never reaches the model, unless the application's own check passed."""

from __future__ import annotations

import asyncio

from agent_turns import caller_says
from callers import ROOMY_START_BUDGET, account_holder, new_number, sip_attributes

from caller_context import AsyncCallerContextClient
from caller_context_livekit import CallerClaim, CallMemory

from livekit_fakes import sip_caller
from service import Account, ServiceProcess


def said_account(number: str) -> tuple[str, tuple[str, dict[str, str | None]]]:
    return f"My account number is {number}", ("identify_caller", {"account_number": number, "phone_number": None})


def test_a_spoken_account_number_identifies_unverified_and_keeps_held_back_values_from_the_model(
    service: ServiceProcess, account: Account
) -> None:
    async def scenario() -> None:
        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            holder = await account_holder(client)
            # A new number: the service cannot tell who this is until the caller gives their account number.
            memory = CallMemory(client, sip_caller(sip_attributes(new_number())), start_budget=ROOMY_START_BUDGET)
            started = await memory.start()
            assert started is not None and started.identity.recommendation == "ignore"

            model, output = await caller_says(memory, *said_account(holder.account_number))

            assert memory.customer_ref == holder.customer_ref
            assert memory.latest is not None
            assert "verified" not in memory.latest.identity.sources
            assert memory.latest.identity.confidence < 1
            assert memory.latest.held_back_variables == ("balance_owed",)
            assert output is not None and "- plan: fibre_500" in output
            assert "Held back until the caller is verified" in output and ": balance_owed" in output
            # The tool's output reached the model; the held-back value never did.
            assert "- plan: fibre_500" in model.seen_by_model()
            assert "eur_1234" not in model.seen_by_model()
            assert "eur_1234" not in memory.context_text

    asyncio.run(scenario())


def test_identify_is_verified_only_when_the_applications_check_says_so(
    service: ServiceProcess, account: Account
) -> None:
    async def scenario() -> None:
        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            refused = await account_holder(client)
            claims: list[CallerClaim] = []

            async def doubting(claim: CallerClaim) -> bool:
                claims.append(claim)
                return False

            doubted = CallMemory(
                client,
                sip_caller(sip_attributes(new_number())),
                start_budget=ROOMY_START_BUDGET,
                verify_caller=doubting,
            )
            await doubted.start()
            model, _ = await caller_says(doubted, *said_account(refused.account_number))
            assert claims == [CallerClaim(account_number=refused.account_number)]
            assert doubted.latest is not None and "verified" not in doubted.latest.identity.sources
            assert "eur_1234" not in model.seen_by_model()

            checked = await account_holder(client)

            async def pin_checked(claim: CallerClaim) -> bool:
                return claim.account_number == checked.account_number

            trusted = CallMemory(
                client,
                sip_caller(sip_attributes(new_number())),
                start_budget=ROOMY_START_BUDGET,
                verify_caller=pin_checked,
            )
            await trusted.start()
            model, output = await caller_says(trusted, *said_account(checked.account_number))
            assert trusted.latest is not None
            assert trusted.latest.identity.confidence == 1
            assert trusted.latest.identity.sources[0] == "verified"
            assert output is not None and "- balance_owed: eur_1234" in output
            assert "- balance_owed: eur_1234" in model.seen_by_model()

    asyncio.run(scenario())


def test_a_check_that_fails_is_a_no(service: ServiceProcess, account: Account) -> None:
    async def scenario() -> None:
        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            holder = await account_holder(client)
            failures: list[BaseException] = []

            async def broken_check(_claim: CallerClaim) -> bool:
                raise ConnectionError("PIN service unreachable")

            memory = CallMemory(
                client,
                sip_caller(sip_attributes(new_number())),
                start_budget=ROOMY_START_BUDGET,
                verify_caller=broken_check,
                on_start_failed=failures.append,
            )
            await memory.start()
            model, _ = await caller_says(memory, *said_account(holder.account_number))
            assert memory.latest is not None and "verified" not in memory.latest.identity.sources
            assert "eur_1234" not in model.seen_by_model()
            assert [type(error) for error in failures] == [ConnectionError]

    asyncio.run(scenario())
