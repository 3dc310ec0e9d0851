"""One SIP call's memory: started from the participant's attributes within a budget, its context handed to the
agent, re-identified by a tool, and ended once with what the agent recorded.

The rules (docs/integrations.md, "Voice-agent frameworks: the rules"): the model's word never verifies a caller;
nothing here fails the call; what the service gives (summaries, held-back variables, the end's summary,
attestation) reaches the model or the service.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine, Mapping
from typing import Protocol

from livekit.agents import llm

from caller_context import (
    AsyncCallerContextClient,
    CallContext,
    CallerClaim,
    CallNotes,
    EndedCall,
    RenderOptions,
    VerifyCaller,
    render_caller_context,
)
from caller_context.agent_tools import LOOKUP_FAILED, NO_RECORDS
from caller_context.caller_claims import claim_hints, verified_by

from .call_tools import CallOutcome, create_call_tools
from .sip_attributes import NotASipCallerError, SipStart, SipStartOptions, start_request_from_sip

logger = logging.getLogger("caller_context_livekit")

DEFAULT_START_BUDGET_S = 0.8


class HasAttributes(Protocol):
    """The SIP participant (`rtc.RemoteParticipant` is one), or anything with its attributes."""

    @property
    def attributes(self) -> Mapping[str, str]: ...


class HasShutdownCallbacks(Protocol):
    """`JobContext` as far as the end needs it."""

    def add_shutdown_callback(self, callback: Callable[[], Coroutine[None, None, None]]) -> None: ...


def warn_start_failed(error: BaseException) -> None:
    logger.warning("caller context: no context for this call: %s: %s", type(error).__name__, error)


def warn_end_failed(error: BaseException) -> None:
    logger.warning("caller context: the call's end failed: %s: %s", type(error).__name__, error)


class CallMemory(CallNotes):
    """The memory of one call.

    `verify_caller` is the application's own check that the caller is who they claim (a PIN, a one-time code, a
    question only they can answer). Without it, or when it answers False, identify goes unverified: the service
    neither links the caller's number to that customer nor releases the variables saved with
    requires_verification. `start_budget` (seconds, default 0.8, retries included): past it, or when the service
    refuses or cannot be reached, the agent goes on without context and `on_start_failed` is told why (default: a
    warning in the log).
    """

    def __init__(
        self,
        client: AsyncCallerContextClient,
        participant: HasAttributes | None,
        *,
        verify_caller: VerifyCaller | None = None,
        start_budget: float = DEFAULT_START_BUDGET_S,
        on_start_failed: Callable[[BaseException], None] = warn_start_failed,
        sip: SipStartOptions | None = None,
        rendering: RenderOptions | None = None,
        identify_key: str = "account_number",
    ) -> None:
        super().__init__()
        self._client = client
        self._verify_caller = verify_caller
        self._start_budget = start_budget
        self._report = on_start_failed
        self._rendering = rendering
        self._identify_key = identify_key
        # A participant that is not a SIP caller (a web client, another agent, the console) gets no memory, not a crash.
        self._request: SipStart | None = None
        self._not_sip: NotASipCallerError | None = None
        try:
            if participant is None:
                raise NotASipCallerError("No SIP participant joined this job")
            self._request = start_request_from_sip(participant.attributes, sip)
        except NotASipCallerError as error:
            self._not_sip = error
        self._starting: asyncio.Task[CallContext | None] | None = None
        self._latest: CallContext | None = None
        # One key for every attempt at this call's end, however often and from wherever it is retried.
        self._end_key = f"livekit-end-{uuid.uuid4()}"
        self._ending: asyncio.Task[EndedCall | None] | None = None
        self.tools: list[llm.Tool | llm.Toolset] = create_call_tools(self._identify, self._record)

    async def start(self) -> CallContext | None:
        """Starts the call with the service, once: a later call returns the first one's answer, since a second start
        of a call whose first may have landed is never sent. Never raises: None when the service was late, refused
        or down (the call goes on without context, and no end is sent, since no start is known to have landed)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start_once())
        return await asyncio.shield(self._starting)

    async def _start_once(self) -> CallContext | None:
        if self._request is None:
            self._report(self._not_sip or NotASipCallerError("not a SIP caller"))
            return None
        request = self._request
        try:
            started = await self._client.start(
                request.call_id, request.identity_hints, telco=request.telco, timeout=self._start_budget
            )
        except Exception as error:
            self._report(error)
            return None
        self._latest = started
        return started

    @property
    def latest(self) -> CallContext | None:
        """The latest answer (start or identify)."""
        return self._latest

    @property
    def customer_ref(self) -> str | None:
        """The customer the call belongs to now (after identify, the one identified)."""
        return None if self._latest is None else self._latest.customer_ref

    @property
    def context_text(self) -> str:
        """The caller context as text, from the latest start or identify; empty without one."""
        return "" if self._latest is None else render_caller_context(self._latest, self._rendering)

    def instructions(self, base: str) -> str:
        """`base` followed by the caller context: for `Agent(instructions=...)`."""
        return base if self._latest is None else f"{base}\n\n{self.context_text}"

    def chat_context(self) -> llm.ChatContext:
        """A new ChatContext holding the caller context as one system message: for `Agent(chat_ctx=...)`."""
        chat_ctx = llm.ChatContext.empty()
        if self._latest is not None:
            chat_ctx.add_message(role="system", content=self.context_text)
        return chat_ctx

    async def end(self) -> EndedCall | None:
        """Ends the call with what was recorded. Concurrent and later calls share one end; an end that failed is sent
        again by the next call with the same Idempotency-Key, so the service saves it once. None when no start
        landed."""
        if self._latest is None or self._request is None:
            return None
        if self._ending is None or (self._ending.done() and self._ending.exception() is not None):
            self._ending = asyncio.ensure_future(self._end_once(self._request.call_id, self._latest.customer_ref))
        return await asyncio.shield(self._ending)

    async def _end_once(self, call_id: str, customer_ref: str) -> EndedCall | None:
        return await self._client.end(
            call_id,
            customer_ref=customer_ref,
            intent_updates=self.intent_updates,
            variable_updates=self.variable_updates,
            summary=self.summary,
            idempotency_key=self._end_key,
        )

    def end_on_shutdown(
        self, ctx: HasShutdownCallbacks, on_error: Callable[[BaseException], None] = warn_end_failed
    ) -> None:
        """Ends the call from the job's shutdown callbacks, which livekit-agents awaits before the job's process exits,
        so the end is sent, and retried, even when the room closes first. An end that fails is passed to `on_error`,
        never raised into the framework's shutdown."""

        async def end_caller_context() -> None:
            try:
                await self.end()
            except Exception as error:
                on_error(error)

        ctx.add_shutdown_callback(end_caller_context)

    async def _identify(self, claim: CallerClaim) -> str:
        # Only a call the service started can move to another customer.
        if self._request is None or self._latest is None:
            return NO_RECORDS
        verified = await verified_by(self._verify_caller, claim, self._report)
        hints = claim_hints(claim, self._identify_key)
        try:
            self._latest = await self._client.identify(self._request.call_id, hints, verified=verified)
        except Exception as error:
            self._report(error)
            return LOOKUP_FAILED
        return self.context_text

    def _record(self, outcome: CallOutcome) -> None:
        self.record_intent(outcome.intent, outcome.status)
        if outcome.summary:
            self.set_summary(outcome.summary)
        for name, value in outcome.variables.items():
            self.set_variable(name, value)
