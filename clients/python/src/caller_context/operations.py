"""Each public RPC as the REST request that carries it: route, body, retry safety, and how its answer reads.

Built once here and run by either client (sync or asyncio), so both send exactly the same requests.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from . import models
from .inputs import (
    IdentityHints,
    IntentStatus,
    IntentUpdate,
    Telco,
    VariableUpdate,
    compact,
    hints_json,
    identifier_fields,
    intent_update_json,
    telco_json,
    variable_update_json,
)
from .retry import RetrySafety

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Operation(Generic[T]):
    rpc: str
    method: str
    path: str
    safety: RetrySafety
    parse: Callable[[models.Json], T]
    body: Mapping[str, Any] | None = None
    params: Mapping[str, str] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def rpc(name: str) -> Callable[[F], F]:
    """Names the RPC a client method serves, so a test can hold the clients to every RPC in proto/."""

    def mark(method: F) -> F:
        method.__rpc__ = name  # type: ignore[attr-defined]
        return method

    return mark


def _ref(customer_ref: str) -> str:
    return quote(customer_ref, safe="")


def start_call(call_id: str, identity_hints: IdentityHints, telco: Telco | None) -> Operation[models.CallContext]:
    body = {"call_id": call_id, "identity_hints": hints_json(identity_hints)}
    if telco is not None:
        body["telco"] = telco_json(telco)
    return Operation("StartCall", "POST", "/v1/calls/start", "once", models.call_context, body)


def end_call(
    call_id: str,
    *,
    customer_ref: str | None,
    identity_hints: IdentityHints | None,
    intent: str | None,
    intent_status: IntentStatus | None,
    variables: Mapping[str, str] | None,
    intent_updates: Sequence[IntentUpdate] | None,
    variable_updates: Mapping[str, VariableUpdate] | None,
    summary: str | None,
    idempotency_key: str | None,
) -> Operation[models.EndedCall]:
    body = compact(
        {
            "call_id": call_id,
            "customer_ref": customer_ref,
            "identity_hints": None if identity_hints is None else hints_json(identity_hints),
            "intent": intent,
            "intent_status": intent_status,
            "variables": None if variables is None else dict(variables),
            "intent_updates": None if intent_updates is None else [intent_update_json(u) for u in intent_updates],
            "variable_updates": None
            if variable_updates is None
            else {name: variable_update_json(u) for name, u in variable_updates.items()},
            "summary": summary,
        }
    )
    # Every end carries a key, made here once and so reused by all its retries: a repeat is answered with
    # the first end's response and saves nothing.
    key = idempotency_key or f"end-{uuid.uuid4()}"
    return Operation(
        "EndCall", "POST", "/v1/calls/end", "repeatable", models.ended_call, body, headers={"Idempotency-Key": key}
    )


def identify_call(call_id: str, identity_hints: IdentityHints, verified: bool) -> Operation[models.CallContext]:
    body: dict[str, Any] = {"call_id": call_id, "identity_hints": hints_json(identity_hints)}
    if verified:
        body["verified"] = True
    return Operation("IdentifyCall", "POST", "/v1/calls/identify", "once", models.call_context, body)


def get_usage() -> Operation[models.Usage]:
    return Operation("GetUsage", "GET", "/v1/usage", "repeatable", models.usage)


def get_contact_figures(from_day: str, to_day: str) -> Operation[models.Json]:
    params = {"from": from_day, "to": to_day}
    return Operation("GetContactFigures", "GET", "/v1/analytics/contact-figures", "repeatable", _as_json, params=params)


def export_contact_figures(from_day: str, to_day: str) -> Operation[str]:
    params = {"from": from_day, "to": to_day}
    return Operation(
        "ExportContactFigures", "GET", "/v1/analytics/contact-figures/csv", "repeatable", _csv_of, params=params
    )


def _as_json(j: models.Json) -> models.Json:
    return j


def _csv_of(j: models.Json) -> str:
    return str(j["csv"])


def get_customer(customer_ref: str) -> Operation[models.CustomerRecord]:
    return Operation("GetCustomer", "GET", f"/v1/customers/{_ref(customer_ref)}", "repeatable", models.customer_record)


def list_customers(ani: str | None, external_id: tuple[str, str] | None) -> Operation[list[models.CustomerSummary]]:
    params = identifier_fields(ani, external_id)
    return Operation("ListCustomers", "GET", "/v1/customers", "repeatable", models.customer_summaries, params=params)


def erase_customer(customer_ref: str) -> Operation[models.ErasedCustomer]:
    path = f"/v1/customers/{_ref(customer_ref)}"
    return Operation("EraseCustomer", "DELETE", path, "once", models.erased_customer)


def merge_customers(customer_ref: str, from_ref: str) -> Operation[models.CustomerRecord]:
    path = f"/v1/customers/{_ref(customer_ref)}/merge"
    return Operation("MergeCustomers", "POST", path, "once", models.customer_record, {"from": from_ref})


def forget_customer(customer_ref: str) -> Operation[models.ForgottenCustomer]:
    path = f"/v1/customers/{_ref(customer_ref)}/forget-me"
    return Operation("ForgetCustomer", "POST", path, "once", models.forgotten_customer, {})


def lift_forget_me(ani: str | None, external_id: tuple[str, str] | None) -> Operation[models.LiftedMark]:
    body = identifier_fields(ani, external_id)
    return Operation("LiftForgetMe", "POST", "/v1/customers/forget-me/lift", "once", models.lifted_mark, body)


def unlink_identifier(
    customer_ref: str, ani: str | None, external_id: tuple[str, str] | None
) -> Operation[models.CustomerRecord]:
    path = f"/v1/customers/{_ref(customer_ref)}/identifiers"
    params = identifier_fields(ani, external_id)
    return Operation("UnlinkIdentifier", "DELETE", path, "once", models.customer_record, params=params)
