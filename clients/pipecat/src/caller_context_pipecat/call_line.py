"""Which call the pipeline carries, read from what the telephony provider gave the bot.

A pipecat bot learns its caller from the provider's first messages, never from the serializer, which keeps only
the ids it needs to hang up (TwilioFrameSerializer's call_sid, TelnyxFrameSerializer's call_control_id):

- Twilio Media Streams: the "start" message has `start.callSid` and `start.customParameters`, the `<Parameter>`s
  of the app's TwiML `<Stream>`. The caller's number is there only when the TwiML puts it there: pipecat's runner
  reads `from_number` and `to_number` (`<Parameter name="from_number" value="{From}"/>`), and this reads a
  `verstat` one too (`<Parameter name="verstat" value="{StirVerstat}"/>`).
- Telnyx media streaming: the "start" message has `start.call_control_id`, `start.from` and `start.to`.
- Daily dial-in: the bot's body holds `dialin_settings` with `call_id`, `From`, `To` and `sip_headers`.

`pipecat.runner.utils.parse_telephony_websocket` reads the first two; its CallData goes to `line_from_call_data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from caller_context import IdentityHints, Telco


@dataclass(frozen=True)
class CallLine:
    """One phone call: its id at the service (prefixed by its source, so ids of two providers never collide),
    the caller's and the dialled number, and what the network said about the caller's number."""

    call_id: str
    ani: str | None = None
    dnis: str | None = None
    external_ids: Mapping[str, str] = field(default_factory=dict)
    telco: Telco | None = None

    def identity_hints(self) -> IdentityHints:
        return IdentityHints(ani=self.ani, dnis=self.dnis, external_ids=dict(self.external_ids))


class NotAPhoneCallError(ValueError):
    """What the bot was given does not name a phone call (no call id): a web client, a test, a wrong message."""


def line_from_twilio_start(message: Mapping[str, Any], *, call_id_prefix: str = "twilio-") -> CallLine:
    """From Twilio's media stream "start" message, as received on the websocket."""
    start = _mapping(message.get("start"))
    parameters = _mapping(start.get("customParameters"))
    return _line(
        call_id_prefix,
        start.get("callSid"),
        ani=parameters.get("from_number"),
        dnis=parameters.get("to_number"),
        verstat=parameters.get("verstat"),
    )


def line_from_telnyx_start(message: Mapping[str, Any], *, call_id_prefix: str = "telnyx-") -> CallLine:
    """From Telnyx's media streaming "start" message, as received on the websocket."""
    start = _mapping(message.get("start"))
    return _line(call_id_prefix, start.get("call_control_id"), ani=start.get("from"), dnis=start.get("to"))


def line_from_call_data(transport_type: str, call_data: Any) -> CallLine:
    """From `parse_telephony_websocket`'s answer: `("twilio" | "telnyx", CallData)`."""
    if transport_type not in ("twilio", "telnyx"):
        raise NotAPhoneCallError(f"no caller is read from a {transport_type!r} websocket")
    call_id = getattr(call_data, "call_id", None)
    ani = getattr(call_data, "from_number", None)
    dnis = getattr(call_data, "to_number", None)
    body = _mapping(getattr(call_data, "body", None))
    return _line(f"{transport_type}-", call_id, ani=ani, dnis=dnis, verstat=body.get("verstat"))


def line_from_daily_dialin(body: Any, *, verstat_header: str | None = None, call_id_prefix: str = "daily-") -> CallLine:
    """From a Daily dial-in bot's body (`{"dialin_settings": {...}}`, a DailyDialinRequest or its settings).

    `verstat_header` names the SIP header carrying the network's verification, when the SIP trunk forwards one
    (`P-Asserted-Identity` with its `verstat=` parameter, or `X-Twilio-VerStat`): sent as `telco.verstat`.
    """
    settings = _field(body, "dialin_settings") or body
    headers = _mapping(_field(settings, "sip_headers"))
    verstat = None
    if verstat_header is not None:
        wanted = verstat_header.lower()
        verstat = next((value for name, value in headers.items() if name.lower() == wanted), None)
    return _line(
        call_id_prefix,
        _field(settings, "call_id"),
        ani=_field(settings, "From"),
        dnis=_field(settings, "To"),
        verstat=verstat,
    )


def _line(prefix: str, call_id: Any, *, ani: Any, dnis: Any, verstat: Any = None) -> CallLine:
    if not isinstance(call_id, str) or not call_id.strip():
        raise NotAPhoneCallError("the provider's message has no call id")
    verstat_text = _text(verstat)
    return CallLine(
        call_id=f"{prefix}{call_id.strip()}",
        ani=_text(ani),
        dnis=_text(dnis),
        telco=None if verstat_text is None else Telco(verstat=verstat_text),
    )


def _text(value: Any) -> str | None:
    """A provider's value, trimmed; None when absent or empty (a template left blank gives "")."""
    return value.strip() or None if isinstance(value, str) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _field(value: Any, name: str) -> Any:
    """A key of a mapping or an attribute of a model (pipecat hands either, depending on the runner)."""
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)
