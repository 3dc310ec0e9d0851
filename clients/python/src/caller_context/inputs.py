"""What a caller sends, as dataclasses whose fields are the REST API's JSON names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

LineType = Literal["mobile", "landline", "voip", "unknown"]
IntentStatus = Literal["open", "resolved"]


@dataclass(frozen=True)
class IdentityHints:
    """Who the caller may be: at least one of ani, external_ids, customer_ref (dnis is the number dialled)."""

    ani: str | None = None
    external_ids: Mapping[str, str] = field(default_factory=dict)
    customer_ref: str | None = None
    dnis: str | None = None


@dataclass(frozen=True)
class Telco:
    line_type: LineType | None = None
    attestation: str | None = None
    verstat: str | None = None


@dataclass(frozen=True)
class IntentResolution:
    type: str | None = None
    external_reference: str | None = None


@dataclass(frozen=True)
class IntentUpdate:
    intent: str
    status: IntentStatus
    resolution: IntentResolution | None = None


@dataclass(frozen=True)
class VariableUpdate:
    value: str
    source: str | None = None
    ttl_seconds: int | None = None
    requires_verification: bool | None = None


def compact(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON object of `fields` without the ones not given (None, or an empty mapping)."""
    return {k: v for k, v in fields.items() if v is not None and not (isinstance(v, Mapping) and len(v) == 0)}


def hints_json(hints: IdentityHints) -> dict[str, Any]:
    return compact(
        {
            "ani": hints.ani,
            "external_ids": dict(hints.external_ids),
            "customer_ref": hints.customer_ref,
            "dnis": hints.dnis,
        }
    )


def telco_json(telco: Telco) -> dict[str, Any]:
    return compact({"line_type": telco.line_type, "attestation": telco.attestation, "verstat": telco.verstat})


def intent_update_json(update: IntentUpdate) -> dict[str, Any]:
    resolution = update.resolution
    return compact(
        {
            "intent": update.intent,
            "status": update.status,
            "resolution": None
            if resolution is None
            else compact({"type": resolution.type, "external_reference": resolution.external_reference}),
        }
    )


def variable_update_json(update: VariableUpdate) -> dict[str, Any]:
    return compact(
        {
            "value": update.value,
            "source": update.source,
            "ttl_seconds": update.ttl_seconds,
            "requires_verification": update.requires_verification,
        }
    )


def identifier_fields(ani: str | None, external_id: tuple[str, str] | None) -> dict[str, str]:
    """One identifier, a number or an external id; the wire form of the latter is "key:value"."""
    if (ani is None) == (external_id is None):
        raise TypeError("give exactly one of ani= and external_id=(key, value)")
    if ani is not None:
        return {"ani": ani}
    assert external_id is not None
    return {"external_id": f"{external_id[0]}:{external_id[1]}"}
