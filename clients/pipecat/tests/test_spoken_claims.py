"""What a caller says about who they are is a hint: it never verifies them, and never releases what is held back
until they are verified. Only the application's own check (verify_caller) does."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from customers import SECRET, SUMMARY, KnownCaller, known_caller
from pipecat.tests.utils import SleepFrame

from caller_context import AsyncCallerContextClient, CallerContextClient
from caller_context_pipecat import CallerClaim, VerifyCaller

from pipelines import ScriptedLLM, build_bot, new_line, run_call
from service import Account, ServiceProcess


def someone_else_claims(
    service: ServiceProcess, account: Account, caller: KnownCaller, verify_caller: VerifyCaller | None
) -> tuple[ScriptedLLM, str]:
    """A call from another number whose caller says the known caller's account number."""
    other_ani = f"+1628555{uuid.uuid4().int % 10_000:04d}"
    claim = {"account_number": caller.account_number, "phone_number": None}

    async def call() -> ScriptedLLM:
        async with AsyncCallerContextClient(service.url, account.api_key) as callers:
            # The greeting runs the LLM once the context is there; the claim and the answer to it follow.
            script = [[("identify_caller", claim)]]
            bot = build_bot(callers, new_line(other_ani), script=script, verify_caller=verify_caller, greet=True)
            await run_call(bot.pipeline, [SleepFrame(sleep=2.0)])
            return bot.llm

    return asyncio.run(call()), other_ani


async def says_no(_claim: CallerClaim) -> bool:
    return False


async def breaks(_claim: CallerClaim) -> bool:
    raise RuntimeError("the PIN service is down")


@pytest.mark.parametrize("verify_caller", [None, says_no, breaks], ids=["no check", "check says no", "check fails"])
def test_a_spoken_account_number_is_never_a_verified_identify(
    service: ServiceProcess, account: Account, verify_caller: VerifyCaller | None
) -> None:
    caller = known_caller(service.url, account.api_key)
    llm, other_ani = someone_else_claims(service, account, caller, verify_caller)
    seen = llm.all_texts()
    # The model heard the caller's account as a hint: the held-back names, never their values.
    assert SUMMARY in seen and "secret_word" in seen
    assert SECRET not in seen
    # The service was told unverified: the number the claim came from is not linked to the known caller.
    with CallerContextClient(service.url, account.api_key) as callers:
        owners = {summary.customer_ref for summary in callers.customers.list(ani=other_ani)}
    assert caller.customer_ref not in owners


def test_the_applications_check_makes_the_identify_verified(service: ServiceProcess, account: Account) -> None:
    caller = known_caller(service.url, account.api_key)
    checked: list[CallerClaim] = []

    async def pin_checked(claim: CallerClaim) -> bool:
        checked.append(claim)
        return True

    llm, other_ani = someone_else_claims(service, account, caller, pin_checked)
    assert checked == [CallerClaim(account_number=caller.account_number)]
    assert f"secret_word: {SECRET}" in llm.all_texts()
    with CallerContextClient(service.url, account.api_key) as callers:
        owners = {summary.customer_ref for summary in callers.customers.list(ani=other_ani)}
    assert owners == {caller.customer_ref}
