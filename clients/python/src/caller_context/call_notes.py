"""What a call leaves for the caller's next one, noted while it runs and sent with its end: the intents and their
status, the variables to save, the summary. The voice-agent integrations' CallMemory keeps its notes here."""

from __future__ import annotations

from .inputs import IntentStatus, IntentUpdate, VariableUpdate


class CallNotes:
    def __init__(self) -> None:
        self._intents: dict[str, IntentStatus] = {}
        self._variables: dict[str, str] = {}
        self._summary: str | None = None

    def record_intent(self, intent: str, status: IntentStatus) -> None:
        """Records an intent to save at the end; a later record of the same intent replaces it."""
        self._intents[intent] = status

    def set_variable(self, name: str, value: str) -> None:
        self._variables[name] = value

    def set_summary(self, summary: str) -> None:
        """The call's summary, sent with the end; the caller's next start and identify recall it in `recent_calls`."""
        self._summary = summary

    @property
    def intent_updates(self) -> list[IntentUpdate]:
        return [IntentUpdate(intent=intent, status=status) for intent, status in self._intents.items()]

    @property
    def variable_updates(self) -> dict[str, VariableUpdate]:
        return {name: VariableUpdate(value=value) for name, value in self._variables.items()}

    @property
    def summary(self) -> str | None:
        return self._summary
