"""The call and its caller, read from what each provider gives a pipecat bot: Twilio's and Telnyx's first
websocket messages (through pipecat's own parse_telephony_websocket too) and Daily's dial-in body."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from pipecat.runner.types import DailyDialinRequest
from pipecat.runner.utils import parse_telephony_websocket

from caller_context import Telco
from caller_context_pipecat import (
    CallLine,
    NotAPhoneCallError,
    line_from_call_data,
    line_from_daily_dialin,
    line_from_telnyx_start,
    line_from_twilio_start,
)

TWILIO_START = {
    "event": "start",
    "sequenceNumber": "1",
    "start": {
        "accountSid": "AC123",
        "streamSid": "MZ123",
        "callSid": "CA123",
        "tracks": ["inbound"],
        "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1},
        "customParameters": {
            "from_number": "+14155550123",
            "to_number": "+18005550100",
            "verstat": "TN-Validation-Passed-A",
        },
    },
    "streamSid": "MZ123",
}
TELNYX_START = {
    "event": "start",
    "sequence_number": "1",
    "stream_id": "st-1",
    "start": {
        "call_control_id": "v3:abc",
        "from": "+14155550124",
        "to": "+18005550101",
        "media_format": {"encoding": "PCMU", "sample_rate": 8000, "channels": 1},
    },
}


class ProviderSocket:
    """The telephony provider's end of the websocket, as pipecat's parser reads it."""

    def __init__(self, *messages: Mapping[str, Any]) -> None:
        self._messages = [json.dumps(m) for m in messages]

    async def iter_text(self) -> AsyncIterator[str]:
        for message in self._messages:
            yield message


def parsed(*messages: Mapping[str, Any]) -> CallLine:
    socket = ProviderSocket(*messages)
    # The provider's end stands in for FastAPI's WebSocket, of which the parser reads only iter_text().
    transport_type, call_data = asyncio.run(parse_telephony_websocket(socket))  # type: ignore[arg-type]
    return line_from_call_data(transport_type, call_data)


def test_twilio_gives_the_call_sid_and_the_twiml_parameters() -> None:
    expected = CallLine("twilio-CA123", "+14155550123", "+18005550100", telco=Telco(verstat="TN-Validation-Passed-A"))
    assert line_from_twilio_start(TWILIO_START) == expected
    assert parsed({"event": "connected", "protocol": "Call", "version": "1.0.0"}, TWILIO_START) == expected


def test_twilio_without_the_callers_parameter_has_no_number() -> None:
    message = {**TWILIO_START, "start": {**TWILIO_START["start"], "customParameters": {}}}  # type: ignore[dict-item]
    assert line_from_twilio_start(message) == CallLine("twilio-CA123")


def test_telnyx_gives_the_call_control_id_and_both_numbers() -> None:
    expected = CallLine("telnyx-v3:abc", "+14155550124", "+18005550101")
    assert line_from_telnyx_start(TELNYX_START) == expected
    assert parsed({"event": "connected", "version": "1.0.0"}, TELNYX_START) == expected


def test_daily_dial_in_gives_its_settings_and_a_forwarded_verstat_header() -> None:
    body = {
        "dialin_settings": {
            "call_id": "d-1",
            "call_domain": "dom",
            "From": "+14155550125",
            "To": "+18005550102",
            "sip_headers": {"p-asserted-identity": "<sip:+14155550125@sip.example;verstat=TN-Validation-Passed>"},
        },
        "daily_api_key": "k",
        "daily_api_url": "https://api.daily.co/v1",
    }
    expected = CallLine(
        "daily-d-1",
        "+14155550125",
        "+18005550102",
        telco=Telco(verstat="<sip:+14155550125@sip.example;verstat=TN-Validation-Passed>"),
    )
    assert line_from_daily_dialin(body, verstat_header="P-Asserted-Identity") == expected
    assert (
        line_from_daily_dialin(DailyDialinRequest.model_validate(body), verstat_header="P-Asserted-Identity")
        == expected
    )
    assert line_from_daily_dialin(body).telco is None


def test_what_names_no_call_is_refused_clearly() -> None:
    with pytest.raises(NotAPhoneCallError):
        line_from_daily_dialin({})
    with pytest.raises(NotAPhoneCallError):
        line_from_call_data("websocket", None)
