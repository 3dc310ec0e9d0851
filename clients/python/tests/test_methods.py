"""Every method of the blocking client against the real service."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from caller_context import (
    CallerContextClient,
    IdentityHints,
    IntentResolution,
    IntentUpdate,
    NotFoundError,
    Telco,
    VariableUpdate,
)

from service import Account, ServiceProcess


@pytest.fixture
def client(service: ServiceProcess, account: Account) -> Iterator[CallerContextClient]:
    with CallerContextClient(service.url, account.api_key) as client:
        yield client


def new_call() -> str:
    return f"py-{uuid.uuid4()}"


def test_start_end_and_the_next_start_return_the_saved_intent_and_variables(client: CallerContextClient) -> None:
    hints = IdentityHints(ani="+14155550123", external_ids={"crm_id": "C-1"})
    first = client.start(new_call(), hints, telco=Telco(line_type="mobile"))
    assert first.identity.recommendation == "ignore"
    assert first.open_intents == () and dict(first.variables) == {}

    ended = client.end(
        first.call_id,
        customer_ref=first.customer_ref,
        intent="billing_question",
        variables={"preferred_name": "Ann"},
        summary="Asked about an invoice",
    )
    assert (ended.call_id, ended.customer_ref, ended.intents_updated, ended.variables_updated) == (
        first.call_id,
        first.customer_ref,
        1,
        1,
    )
    assert ended.call_end is not None and ended.call_start == first.call_start

    second = client.start(new_call(), hints, telco=Telco(line_type="mobile"))
    assert second.customer_ref == first.customer_ref
    assert second.identity.recommendation == "reuse" and second.identity.confidence >= 0.9
    assert [(i.intent, i.status, i.attempt_count) for i in second.open_intents] == [("billing_question", "open", 1)]
    assert second.variables["preferred_name"].value == "Ann"
    assert second.variables["preferred_name"].ttl_seconds == 2_592_000
    assert [c.summary for c in second.recent_calls] == ["Asked about an invoice"]


def test_end_in_the_advanced_form_saves_intent_updates_and_variable_updates(client: CallerContextClient) -> None:
    started = client.start(new_call(), IdentityHints(ani="+14155550124"))
    ended = client.end(
        started.call_id,
        customer_ref=started.customer_ref,
        intent_updates=[
            IntentUpdate("refund", "resolved", IntentResolution(type="refund_issued", external_reference="R-1")),
            IntentUpdate("delivery", "open"),
        ],
        variable_updates={"plan": VariableUpdate("gold", source="crm", ttl_seconds=3600, requires_verification=True)},
    )
    assert (ended.intents_updated, ended.variables_updated) == (2, 1)
    record = client.customers.get(started.customer_ref)
    assert [i.intent for i in record.open_intents] == ["delivery"]
    resolved = {i.intent: i.resolution for i in record.resolved_intents}
    assert resolved["refund"] is not None and resolved["refund"].external_reference == "R-1"
    assert record.variables["plan"].requires_verification is True
    assert record.variables["plan"].source == "crm"


def test_identify_with_verified_gives_confidence_1_and_reuse(client: CallerContextClient) -> None:
    known = client.start(new_call(), IdentityHints(ani="+14155550125"))
    client.end(known.call_id, customer_ref=known.customer_ref, variables={"tier": "vip"})
    started = client.start(new_call(), IdentityHints(ani="+14155550999"))
    identified = client.identify(started.call_id, IdentityHints(customer_ref=known.customer_ref), verified=True)
    assert identified.customer_ref == known.customer_ref
    assert (identified.identity.confidence, identified.identity.recommendation) == (1.0, "reuse")
    assert identified.identity.sources[0] == "verified"
    assert identified.variables["tier"].value == "vip"


def test_usage_reports_the_keys_quota_and_rate_limit_and_is_not_billed(
    client: CallerContextClient, account: Account
) -> None:
    first = client.usage()
    second = client.usage()
    assert first.tier == "growth" and first.rate_limit.limit == 3000
    assert first.key.kind == "test" and first.key.id == account.key_id
    assert second.quota.remaining == first.quota.remaining == 100_000
    assert first.quota.renews_at is not None


def test_customer_records_get_list_merge_unlink_and_erase(client: CallerContextClient) -> None:
    a = client.start(new_call(), IdentityHints(ani="+14155550126", external_ids={"crm_id": "A-1"}))
    client.end(a.call_id, customer_ref=a.customer_ref, intent="setup")
    b = client.start(new_call(), IdentityHints(ani="+14155550127"))
    client.end(b.call_id, customer_ref=b.customer_ref, intent="upgrade")

    record = client.customers.get(a.customer_ref)
    assert record.identifiers.ani == ("+14155550126",)
    assert [(e.key, e.value) for e in record.identifiers.external_ids] == [("crm_id", "A-1")]
    assert [c.call_id for c in record.calls] == [a.call_id]

    assert [s.customer_ref for s in client.customers.list(ani="+14155550126")] == [a.customer_ref]
    assert [s.customer_ref for s in client.customers.list(external_id=("crm_id", "A-1"))] == [a.customer_ref]

    merged = client.customers.merge(a.customer_ref, b.customer_ref)
    assert set(merged.identifiers.ani) == {"+14155550126", "+14155550127"}
    assert {i.intent for i in merged.open_intents} == {"setup", "upgrade"}

    unlinked = client.customers.unlink(a.customer_ref, ani="+14155550127")
    assert unlinked.identifiers.ani == ("+14155550126",)
    unlinked = client.customers.unlink(a.customer_ref, external_id=("crm_id", "A-1"))
    assert unlinked.identifiers.external_ids == ()

    erased = client.customers.erase(a.customer_ref)
    assert (erased.customer_ref, erased.erased) == (a.customer_ref, True)
    with pytest.raises(NotFoundError):
        client.customers.get(a.customer_ref)


def test_forget_me_erases_and_marks_until_the_mark_is_lifted(client: CallerContextClient) -> None:
    hints = IdentityHints(ani="+14155550128", external_ids={"crm_id": "F-1"})
    started = client.start(new_call(), hints)
    client.end(started.call_id, customer_ref=started.customer_ref, variables={"note": "x"})

    forgotten = client.customers.forget_me(started.customer_ref)
    assert (forgotten.customer_ref, forgotten.erased, forgotten.identifiers_marked) == (
        started.customer_ref,
        True,
        2,
    )
    again = client.start(new_call(), hints)
    assert again.identity.recommendation == "ignore" and again.customer_ref != started.customer_ref
    assert client.customers.list(ani="+14155550128") == []

    lifted = client.customers.lift_forget_me(external_id=("crm_id", "F-1"))
    assert (lifted.lifted, lifted.identifiers_unmarked) == (True, 2)
    assert client.customers.lift_forget_me(ani="+14155550128").lifted is False


def test_an_identifier_needs_exactly_one_of_ani_and_external_id(client: CallerContextClient) -> None:
    with pytest.raises(TypeError):
        client.customers.list()
    with pytest.raises(TypeError):
        client.customers.list(ani="+14155550129", external_id=("crm_id", "X"))
