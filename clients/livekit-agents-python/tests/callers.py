"""Callers and customers the tests make through the real service."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass

from caller_context import AsyncCallerContextClient, IdentityHints, VariableUpdate


def new_number() -> str:
    return f"+1415{random.randrange(10_000_000):07d}"


def sip_attributes(ani: str, **headers: str) -> dict[str, str]:
    """The attributes LiveKit gives a SIP caller's participant; `headers` are mapped SIP headers (sip.h.<name>)."""
    return {
        "sip.callID": f"SCL_{uuid.uuid4().hex[:12]}",
        "sip.phoneNumber": ani,
        "sip.trunkPhoneNumber": "+18005550100",
        "sip.callStatus": "active",
        "sip.trunkID": "ST_test",
        **{f"sip.h.{name.replace('_', '-')}": value for name, value in headers.items()},
    }


@dataclass(frozen=True)
class AccountHolder:
    account_number: str
    customer_ref: str


async def account_holder(client: AsyncCallerContextClient) -> AccountHolder:
    """A customer known by an account number, with a plan and a PIN-protected balance."""
    account_number = f"A-{uuid.uuid4().hex[:10]}"
    known = await client.start(f"c-{uuid.uuid4()}", IdentityHints(external_ids={"account_number": account_number}))
    await client.end(
        known.call_id,
        customer_ref=known.customer_ref,
        variable_updates={
            "plan": VariableUpdate(value="fibre_500"),
            "balance_owed": VariableUpdate(value="eur_1234", requires_verification=True),
        },
    )
    return AccountHolder(account_number=account_number, customer_ref=known.customer_ref)


# Tests of other rules than the budget give the start room: the first start of a fresh service, on a busy machine,
# can take longer than the 800 ms a live call allows.
ROOMY_START_BUDGET = 10.0
