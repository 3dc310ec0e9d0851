"""Customers the service remembers, made through the Python client as an earlier call would leave them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from caller_context import CallerContextClient, IdentityHints, IntentUpdate, VariableUpdate

SUMMARY = "Asked about the gold plan renewal."
SECRET = "swordfish"


@dataclass(frozen=True)
class KnownCaller:
    customer_ref: str
    ani: str
    account_number: str


def known_caller(service_url: str, api_key: str) -> KnownCaller:
    """A caller with one earlier call: an open topic, a plan, a summary, and a secret word saved with
    requires_verification (held back until the caller is verified)."""
    ani = f"+1415555{uuid.uuid4().int % 10_000:04d}"
    account_number = f"ACC-{uuid.uuid4().hex[:8]}"
    with CallerContextClient(service_url, api_key) as callers:
        call_id = f"seed-{uuid.uuid4()}"
        started = callers.start(call_id, IdentityHints(ani=ani, external_ids={"account_number": account_number}))
        callers.end(
            call_id,
            customer_ref=started.customer_ref,
            intent_updates=[IntentUpdate("billing_question", "open")],
            variable_updates={
                "plan": VariableUpdate("gold"),
                "secret_word": VariableUpdate(SECRET, requires_verification=True),
            },
            summary=SUMMARY,
        )
    return KnownCaller(started.customer_ref, ani, account_number)
