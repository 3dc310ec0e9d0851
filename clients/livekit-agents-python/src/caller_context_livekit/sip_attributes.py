"""From a SIP caller's participant attributes to a start request.

A SIP caller reaches a LiveKit room as a participant whose attributes carry the call: `sip.phoneNumber` (the caller),
`sip.trunkPhoneNumber` (the number dialled), `sip.callID`, and each SIP header the trunk maps to an attribute as
`sip.h.<header>` (the trunk's `headers_to_attributes`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from caller_context import IdentityHints, Telco
from caller_context.inputs import LineType

LINE_TYPES: Mapping[str, LineType] = {"mobile": "mobile", "landline": "landline", "voip": "voip", "unknown": "unknown"}


@dataclass(frozen=True)
class SipStartOptions:
    """How the trunk's attributes map to a start.

    `external_ids`: external id key -> attribute name, e.g. `{"account_number": "sip.h.x-account-number"}`; absent or
    empty attributes are left out. `line_type_attribute`: an attribute carrying `mobile`, `landline`, `voip` or
    `unknown`. `verstat_attribute`: an attribute carrying the platform's STIR/SHAKEN verification as received, sent as
    `telco.verstat` (a mapped `X-Twilio-VerStat`, or Telnyx's `P-Asserted-Identity` with its `verstat=` parameter;
    one the service does not know is refused, so map only a header that carries one). `attestation_attribute`: an
    attribute carrying the level itself (`A`, `B`, `C`), sent as `telco.attestation`. `call_id_prefix`: the prefix
    of the call_id made from `sip.callID`, so ids of other sources never collide.
    """

    external_ids: Mapping[str, str] = field(default_factory=dict)
    line_type_attribute: str | None = None
    verstat_attribute: str | None = None
    attestation_attribute: str | None = None
    call_id_prefix: str = "livekit-"


@dataclass(frozen=True)
class SipStart:
    """The start request a SIP participant makes: `start(call_id, identity_hints, telco=telco)`."""

    call_id: str
    identity_hints: IdentityHints
    telco: Telco | None


class NotASipCallerError(Exception):
    """A participant without `sip.callID`: not a SIP caller (a web client, another agent), or none at all."""


def start_request_from_sip(attributes: Mapping[str, str], options: SipStartOptions | None = None) -> SipStart:
    """The start request of a SIP participant's attributes; NotASipCallerError without `sip.callID`."""
    options = options or SipStartOptions()
    sip_call_id = attributes.get("sip.callID")
    if not sip_call_id:
        raise NotASipCallerError("The participant has no sip.callID attribute")
    external_ids = {
        key: value for key, name in options.external_ids.items() if (value := _attribute(attributes, name)) is not None
    }
    line_type_value = (_attribute(attributes, options.line_type_attribute) or "").lower()
    return SipStart(
        call_id=f"{options.call_id_prefix}{sip_call_id}",
        identity_hints=IdentityHints(
            ani=attributes.get("sip.phoneNumber") or None,
            dnis=attributes.get("sip.trunkPhoneNumber") or None,
            external_ids=external_ids,
        ),
        telco=_telco(
            LINE_TYPES.get(line_type_value),
            _attribute(attributes, options.attestation_attribute),
            _attribute(attributes, options.verstat_attribute),
        ),
    )


def _attribute(attributes: Mapping[str, str], name: str | None) -> str | None:
    """A mapped attribute's value, trimmed; None when not mapped, absent or empty."""
    if name is None:
        return None
    return (attributes.get(name) or "").strip() or None


def _telco(line_type: LineType | None, attestation: str | None, verstat: str | None) -> Telco | None:
    if line_type is None and attestation is None and verstat is None:
        return None
    if attestation is not None:
        # The levels are letters (A, B, C); "failed" and "none" are words.
        attestation = attestation.upper() if re.fullmatch(r"[abc]", attestation, re.IGNORECASE) else attestation.lower()
    return Telco(line_type=line_type, attestation=attestation, verstat=verstat)
