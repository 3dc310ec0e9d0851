"""One phone call's memory, without pipecat: started once with a budget, re-identified by the tools, and ended
once with what the bot recorded. `CallerContextProcessor` drives it from the pipeline's frames.

The rules (docs/integrations.md):
- The start has a budget (default 0.8 s). Late, refused or down, the call goes on without context; the outcome
  is logged and counted (START_OUTCOMES), and the start is never sent again (the client repeats a start only when
  the service certainly did not act on it, and only within the budget).
- A caller's spoken claim is a hint: identify is verified only when the application's `verify_caller` says so.
- The end is sent once, with an Idempotency-Key made from the call id, which the client repeats on every retry.
"""

from __future__ import annotations

import asyncio

from loguru import logger

from caller_context import (
    AsyncCallerContextClient,
    CallContext,
    CallerClaim,
    CallerContextError,
    CallNotes,
    EndedCall,
    RenderOptions,
    VerifyCaller,
    render_caller_context,
)
from caller_context.agent_tools import LOOKUP_FAILED, NO_RECORDS
from caller_context.caller_claims import claim_hints, verified_by

from .call_line import CallLine
from .start_outcome import START_OUTCOMES, StartOutcome, outcome_of

DEFAULT_START_BUDGET_S = 0.8


class CallMemory(CallNotes):
    def __init__(
        self,
        client: AsyncCallerContextClient,
        line: CallLine | None,
        *,
        start_budget: float = DEFAULT_START_BUDGET_S,
        verify_caller: VerifyCaller | None = None,
        identify_key: str = "account_number",
        render_options: RenderOptions | None = None,
    ) -> None:
        super().__init__()
        self._client = client
        self._line = line
        self._start_budget = start_budget
        self._verify_caller = verify_caller
        self.identify_key = identify_key
        """The external id key an account number is sent as."""
        self._render_options = render_options
        self._starting: asyncio.Task[CallContext | None] | None = None
        self._ending: asyncio.Task[EndedCall | None] | None = None
        self._latest: CallContext | None = None
        self.start_outcome: StartOutcome | None = None

    def start(self) -> asyncio.Task[CallContext | None]:
        """Starts the call once; later calls return the same task. Its result is None without context."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        return self._starting

    async def _start(self) -> CallContext | None:
        if self._line is None:
            self._no_context("no_caller", "the pipeline carries no phone call")
            return None
        if self._line.ani is None and not self._line.external_ids:
            # Twilio gives the number only as a <Parameter> of the app's TwiML (see call_line.py).
            self._no_context("no_caller", f"call {self._line.call_id} came without the caller's number")
            return None
        try:
            answer = await self._client.start(
                self._line.call_id, self._line.identity_hints(), telco=self._line.telco, timeout=self._start_budget
            )
        except CallerContextError as error:
            self._no_context(outcome_of(error), f"{error.code} ({error.status}): {error.message}")
            return None
        except Exception as error:  # never fail a call: whatever went wrong, the bot talks without context
            self._no_context("down", repr(error))
            return None
        self._latest = answer
        self.start_outcome = "context"
        START_OUTCOMES["context"] += 1
        logger.info(f"caller context: call {answer.call_id} started, recommendation {answer.identity.recommendation}")
        return answer

    def _no_context(self, outcome: StartOutcome, why: str) -> None:
        self.start_outcome = outcome
        START_OUTCOMES[outcome] += 1
        logger.warning(f"caller context: no context for this call ({outcome}): {why}")

    @property
    def latest(self) -> CallContext | None:
        """The latest answer, of the start or an identify."""
        return self._latest

    @property
    def context_text(self) -> str:
        return "" if self._latest is None else render_caller_context(self._latest, self._render_options)

    async def identify(self, claim: CallerClaim) -> str:
        """Identifies the caller again from what they said; the new context text, for the model."""
        if self._line is None or self._latest is None:
            return NO_RECORDS
        hints = claim_hints(claim, self.identify_key)
        verified = await verified_by(self._verify_caller, claim, _warn_verify_failed)
        try:
            self._latest = await self._client.identify(self._line.call_id, hints, verified=verified)
        except CallerContextError as error:
            logger.warning(f"caller context: identify failed: {error.code} ({error.status}): {error.message}")
            return LOOKUP_FAILED
        return self.context_text

    def end(self) -> asyncio.Task[EndedCall | None]:
        """Ends the call once with what was recorded; later calls return the same task."""
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._end())
        return self._ending

    async def _end(self) -> EndedCall | None:
        # A start still in flight is waited for (at most its budget): it decides whether there is a call to end.
        started = await asyncio.shield(self._starting) if self._starting is not None else None
        if started is None or self._line is None or self._latest is None:
            return None
        try:
            ended = await self._client.end(
                self._line.call_id,
                customer_ref=self._latest.customer_ref,
                intent_updates=self.intent_updates,
                variable_updates=self.variable_updates,
                summary=self.summary,
                # The same key on every retry and from any process that sends this end again: saved once.
                idempotency_key=f"end-{self._line.call_id}",
            )
        except CallerContextError as error:
            logger.error(
                f"caller context: the end of {self._line.call_id} was not saved: {error.code}: {error.message}"
            )
            return None
        logger.info(f"caller context: call {ended.call_id} ended")
        return ended


def _warn_verify_failed(error: BaseException) -> None:
    logger.warning(f"caller context: the verification check failed, identifying unverified: {error!r}")
