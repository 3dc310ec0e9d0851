"""What the service answers, as frozen dataclasses.

Dataclasses rather than pydantic: no dependency to clash with a voice framework's own pydantic pin, nothing
validated twice (the service already holds to its OpenAPI document), and plain attributes mypy --strict checks.
Fields the service adds later are ignored, so a newer server never breaks an older client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .timestamps import parse_timestamp

Json = Mapping[str, Any]


@dataclass(frozen=True)
class Identity:
    confidence: float
    level: str | None
    sources: tuple[str, ...]
    recommendation: str | None


@dataclass(frozen=True)
class OpenIntent:
    intent: str
    status: str | None
    attempt_count: int


@dataclass(frozen=True)
class Variable:
    value: str
    source: str | None
    ttl_seconds: int
    requires_verification: bool = False


@dataclass(frozen=True)
class CallIntent:
    intent: str
    status: str | None


@dataclass(frozen=True)
class RecentCall:
    call_start: datetime | None
    call_end: datetime | None
    intents: tuple[CallIntent, ...]
    summary: str


@dataclass(frozen=True)
class CallContext:
    """The answer of start and identify: who the caller is, and their context."""

    call_id: str
    customer_ref: str
    call_start: datetime | None
    identity: Identity
    open_intents: tuple[OpenIntent, ...]
    variables: Mapping[str, Variable]
    recent_calls: tuple[RecentCall, ...]
    held_back_variables: tuple[str, ...]


@dataclass(frozen=True)
class EndedCall:
    call_id: str
    customer_ref: str
    call_start: datetime | None
    call_end: datetime | None
    duration_seconds: float
    intents_updated: int
    variables_updated: int


@dataclass(frozen=True)
class RateLimitUsage:
    limit: int
    remaining: int
    reset_at: datetime | None


@dataclass(frozen=True)
class QuotaUsage:
    remaining: int
    renews_at: datetime | None


@dataclass(frozen=True)
class KeyUsage:
    id: str
    kind: str


@dataclass(frozen=True)
class Usage:
    tier: str
    rate_limit: RateLimitUsage
    quota: QuotaUsage
    key: KeyUsage


@dataclass(frozen=True)
class ExternalId:
    key: str
    value: str


@dataclass(frozen=True)
class CustomerIdentifiers:
    ani: tuple[str, ...]
    external_ids: tuple[ExternalId, ...]


@dataclass(frozen=True)
class Resolution:
    type: str
    external_reference: str


@dataclass(frozen=True)
class ResolvedIntent:
    intent: str
    status: str | None
    resolution: Resolution | None
    resolved_at: datetime | None


@dataclass(frozen=True)
class CustomerCall:
    call_id: str
    call_start: datetime | None
    call_end: datetime | None
    duration_seconds: float | None
    summary: str | None
    intents: tuple[CallIntent, ...]


@dataclass(frozen=True)
class CustomerRecord:
    """A customer's record; merge and unlink answer with it too."""

    customer_ref: str
    created_at: datetime | None
    last_call_at: datetime | None
    identifiers: CustomerIdentifiers
    open_intents: tuple[OpenIntent, ...]
    resolved_intents: tuple[ResolvedIntent, ...]
    variables: Mapping[str, Variable]
    calls: tuple[CustomerCall, ...]


@dataclass(frozen=True)
class CustomerSummary:
    customer_ref: str
    last_call_at: datetime | None


@dataclass(frozen=True)
class ErasedCustomer:
    customer_ref: str
    erased: bool


@dataclass(frozen=True)
class ForgottenCustomer:
    customer_ref: str
    erased: bool
    identifiers_marked: int


@dataclass(frozen=True)
class LiftedMark:
    lifted: bool
    identifiers_unmarked: int


def _identity(j: Json) -> Identity:
    return Identity(
        confidence=float(j.get("confidence", 0)),
        level=j.get("level"),
        sources=tuple(j.get("sources") or ()),
        recommendation=j.get("recommendation"),
    )


def _open_intent(j: Json) -> OpenIntent:
    return OpenIntent(intent=j["intent"], status=j.get("status"), attempt_count=int(j.get("attempt_count") or 0))


def _variables(j: Json | None) -> dict[str, Variable]:
    return {
        name: Variable(
            value=v["value"],
            source=v.get("source"),
            ttl_seconds=int(v.get("ttl_seconds") or 0),
            requires_verification=bool(v.get("requires_verification", False)),
        )
        for name, v in (j or {}).items()
    }


def _call_intents(items: Any) -> tuple[CallIntent, ...]:
    return tuple(CallIntent(intent=i["intent"], status=i.get("status")) for i in items or ())


def call_context(j: Json) -> CallContext:
    return CallContext(
        call_id=j["call_id"],
        customer_ref=j["customer_ref"],
        call_start=parse_timestamp(j.get("call_start")),
        identity=_identity(j.get("identity") or {}),
        open_intents=tuple(_open_intent(i) for i in j.get("open_intents") or ()),
        variables=_variables(j.get("variables")),
        recent_calls=tuple(
            RecentCall(
                call_start=parse_timestamp(c.get("call_start")),
                call_end=parse_timestamp(c.get("call_end")),
                intents=_call_intents(c.get("intents")),
                summary=c.get("summary") or "",
            )
            for c in j.get("recent_calls") or ()
        ),
        held_back_variables=tuple(j.get("held_back_variables") or ()),
    )


def ended_call(j: Json) -> EndedCall:
    return EndedCall(
        call_id=j["call_id"],
        customer_ref=j["customer_ref"],
        call_start=parse_timestamp(j.get("call_start")),
        call_end=parse_timestamp(j.get("call_end")),
        duration_seconds=float(j.get("duration_seconds") or 0),
        intents_updated=int(j.get("intents_updated") or 0),
        variables_updated=int(j.get("variables_updated") or 0),
    )


def usage(j: Json) -> Usage:
    rate = j.get("rate_limit") or {}
    quota = j.get("quota") or {}
    key = j.get("key") or {}
    return Usage(
        tier=j["tier"],
        rate_limit=RateLimitUsage(
            limit=int(rate.get("limit") or 0),
            remaining=int(rate.get("remaining") or 0),
            reset_at=parse_timestamp(rate.get("reset_at")),
        ),
        quota=QuotaUsage(remaining=int(quota.get("remaining") or 0), renews_at=parse_timestamp(quota.get("renews_at"))),
        key=KeyUsage(id=key.get("id", ""), kind=key.get("kind", "")),
    )


def customer_record(j: Json) -> CustomerRecord:
    ids = j.get("identifiers") or {}
    return CustomerRecord(
        customer_ref=j["customer_ref"],
        created_at=parse_timestamp(j.get("created_at")),
        last_call_at=parse_timestamp(j.get("last_call_at")),
        identifiers=CustomerIdentifiers(
            ani=tuple(ids.get("ani") or ()),
            external_ids=tuple(ExternalId(key=e["key"], value=e["value"]) for e in ids.get("external_ids") or ()),
        ),
        open_intents=tuple(_open_intent(i) for i in j.get("open_intents") or ()),
        resolved_intents=tuple(
            ResolvedIntent(
                intent=i["intent"],
                status=i.get("status"),
                resolution=Resolution(type=r.get("type", ""), external_reference=r.get("external_reference", ""))
                if (r := i.get("resolution"))
                else None,
                resolved_at=parse_timestamp(i.get("resolved_at")),
            )
            for i in j.get("resolved_intents") or ()
        ),
        variables=_variables(j.get("variables")),
        calls=tuple(
            CustomerCall(
                call_id=c["call_id"],
                call_start=parse_timestamp(c.get("call_start")),
                call_end=parse_timestamp(c.get("call_end")),
                duration_seconds=None if c.get("duration_seconds") is None else float(c["duration_seconds"]),
                summary=c.get("summary"),
                intents=_call_intents(c.get("intents")),
            )
            for c in j.get("calls") or ()
        ),
    )


def customer_summaries(j: Json) -> list[CustomerSummary]:
    return [
        CustomerSummary(customer_ref=c["customer_ref"], last_call_at=parse_timestamp(c.get("last_call_at")))
        for c in j.get("customers") or ()
    ]


def erased_customer(j: Json) -> ErasedCustomer:
    return ErasedCustomer(customer_ref=j["customer_ref"], erased=bool(j.get("erased")))


def forgotten_customer(j: Json) -> ForgottenCustomer:
    return ForgottenCustomer(
        customer_ref=j["customer_ref"],
        erased=bool(j.get("erased")),
        identifiers_marked=int(j.get("identifiers_marked") or 0),
    )


def lifted_mark(j: Json) -> LiftedMark:
    return LiftedMark(lifted=bool(j.get("lifted")), identifiers_unmarked=int(j.get("identifiers_unmarked") or 0))
