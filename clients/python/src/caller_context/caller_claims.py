"""What a caller says about who they are, for the voice-agent integrations' identify tool.

A spoken claim is a hint, never proof (docs/integrations.md, "Voice-agent frameworks: the rules"): an identify is
sent verified only when the application's own check says so, and a check that fails says no.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .inputs import IdentityHints


@dataclass(frozen=True)
class CallerClaim:
    """What the caller said about who they are, as the identify tool received it."""

    account_number: str | None = None
    phone_number: str | None = None


VerifyCaller = Callable[[CallerClaim], Awaitable[bool]]
"""The application's own check that the caller is who they claim: a PIN or one-time code it checked, an
authenticated channel. Answering True is the only way an identify is sent verified."""


def claim_hints(claim: CallerClaim, identify_key: str) -> IdentityHints:
    """The identity hints of a claim: the account number as the external id `identify_key`."""
    return IdentityHints(
        ani=claim.phone_number,
        external_ids={identify_key: claim.account_number} if claim.account_number else {},
    )


async def verified_by(
    verify_caller: VerifyCaller | None, claim: CallerClaim, on_error: Callable[[BaseException], None]
) -> bool:
    """Only the application's check makes a spoken claim a verified one; a check that fails (told to `on_error`)
    says no."""
    if verify_caller is None:
        return False
    try:
        return (await verify_caller(claim)) is True
    except Exception as error:
        on_error(error)
        return False
