"""The asyncio client: the blocking client's methods as coroutines, over one `httpx.AsyncClient`.

A voice agent can run a start with a budget and go on without context when it runs out:
`await client.start(..., timeout=0.8)` raises DeadlineExceededError at 0.8 s, and cancelling the task that
awaits it stops the request at once (nothing is retried after a cancellation).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TypeVar

import httpx

from . import models, operations
from .attempt import USER_AGENT, now, read_answer, request_arguments
from .error_mapping import error_from_transport
from .errors import CallerContextError, DeadlineExceededError
from .inputs import IdentityHints, IntentStatus, IntentUpdate, Telco, VariableUpdate
from .operations import Operation, rpc
from .retry import RetryPolicy, backoff_seconds, is_retryable
from .settings import checked_api_key, checked_base_url, checked_timeout

T = TypeVar("T")

DEFAULT_TIMEOUT = 5.0


class AsyncCallerContextClient:
    """Start, end, identify, usage and customer records over the REST API.

    `timeout` (seconds, default 5) is each call's deadline, retries included; every method takes its own
    `timeout=` too, and `headers=` for extra request headers (e.g. X-Request-Id). Pass `http_client` to use your
    own `httpx.AsyncClient` (proxies, TLS, event hooks); the client then leaves closing it to you.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._base_url = checked_base_url(base_url)
        self._auth = {"Authorization": f"Bearer {checked_api_key(api_key)}", "User-Agent": USER_AGENT}
        self._timeout = checked_timeout(timeout)
        self._retry = retry or RetryPolicy()
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient()
        self.customers = AsyncCustomerRecords(self)

    @rpc("StartCall")
    async def start(
        self,
        call_id: str,
        identity_hints: IdentityHints,
        *,
        telco: Telco | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CallContext:
        """Identifies the caller and returns their context. Retried only when the service certainly did not act."""
        return await self._run(operations.start_call(call_id, identity_hints, telco), timeout, headers)

    @rpc("EndCall")
    async def end(
        self,
        call_id: str,
        *,
        customer_ref: str | None = None,
        identity_hints: IdentityHints | None = None,
        intent: str | None = None,
        intent_status: IntentStatus | None = None,
        variables: Mapping[str, str] | None = None,
        intent_updates: Sequence[IntentUpdate] | None = None,
        variable_updates: Mapping[str, VariableUpdate] | None = None,
        summary: str | None = None,
        idempotency_key: str | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.EndedCall:
        """Closes the call and saves its context, always with an Idempotency-Key (yours, or one made per end)."""
        operation = operations.end_call(
            call_id,
            customer_ref=customer_ref,
            identity_hints=identity_hints,
            intent=intent,
            intent_status=intent_status,
            variables=variables,
            intent_updates=intent_updates,
            variable_updates=variable_updates,
            summary=summary,
            idempotency_key=idempotency_key,
        )
        return await self._run(operation, timeout, headers)

    @rpc("IdentifyCall")
    async def identify(
        self,
        call_id: str,
        identity_hints: IdentityHints,
        *,
        verified: bool = False,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CallContext:
        """Identifies the caller of a started call again (`verified=True` when the agent checked who they are)."""
        return await self._run(operations.identify_call(call_id, identity_hints, verified), timeout, headers)

    @rpc("GetUsage")
    async def usage(self, *, timeout: float | None = None, headers: Mapping[str, str] | None = None) -> models.Usage:
        """The quota and rate limit left to the key's account; not billed."""
        return await self._run(operations.get_usage(), timeout, headers)

    @rpc("GetContactFigures")
    async def contact_figures(
        self, from_day: str, to_day: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.Json:
        """First-contact resolution and repeat contacts of UTC days from_day..to_day, with the period before."""
        return await self._run(operations.get_contact_figures(from_day, to_day), timeout, headers)

    @rpc("ExportContactFigures")
    async def contact_figures_csv(
        self, from_day: str, to_day: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> str:
        """The same figures as CSV text."""
        return await self._run(operations.export_contact_figures(from_day, to_day), timeout, headers)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncCallerContextClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _run(self, operation: Operation[T], timeout: float | None, headers: Mapping[str, str] | None) -> T:
        deadline = now() + (self._timeout if timeout is None else timeout)
        attempted = 0
        while True:
            attempted += 1
            remaining = deadline - now()
            if remaining <= 0:
                raise DeadlineExceededError("The deadline passed before an answer")
            try:
                return await self._attempt(operation, remaining, headers)
            except CallerContextError as error:
                if attempted >= self._retry.max_attempts or not is_retryable(error, operation.safety):
                    raise
                wait = backoff_seconds(self._retry, attempted, error)
                if now() + wait >= deadline:
                    raise
                await asyncio.sleep(wait)

    async def _attempt(self, operation: Operation[T], remaining: float, headers: Mapping[str, str] | None) -> T:
        arguments = request_arguments(operation, remaining, {**self._auth, **(headers or {})})
        arguments["url"] = self._base_url.join(arguments["url"].lstrip("/"))
        try:
            # httpx times each phase on its own; wait_for holds the attempt as a whole to what is left.
            response = await asyncio.wait_for(self._http.request(**arguments), remaining)
        except asyncio.TimeoutError as error:
            raise DeadlineExceededError("No answer within the deadline") from error
        except httpx.TransportError as error:
            raise error_from_transport(error) from error
        return read_answer(operation, response)


class AsyncCustomerRecords:
    """Look up, list, erase, merge, forget and unlink customer records (`client.customers`)."""

    def __init__(self, client: AsyncCallerContextClient) -> None:
        self._client = client

    @rpc("GetCustomer")
    async def get(
        self, customer_ref: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.CustomerRecord:
        return await self._client._run(operations.get_customer(customer_ref), timeout, headers)

    @rpc("ListCustomers")
    async def list(
        self,
        *,
        ani: str | None = None,
        external_id: tuple[str, str] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> builtins.list[models.CustomerSummary]:
        """The customers (at most one) a number or an external id `(key, value)` belongs to."""
        return await self._client._run(operations.list_customers(ani, external_id), timeout, headers)

    @rpc("EraseCustomer")
    async def erase(
        self, customer_ref: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.ErasedCustomer:
        """Erases the customer and everything that holds their data; not billed."""
        return await self._client._run(operations.erase_customer(customer_ref), timeout, headers)

    @rpc("MergeCustomers")
    async def merge(
        self,
        customer_ref: str,
        from_ref: str,
        *,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CustomerRecord:
        """Moves everything of `from_ref` to `customer_ref`; `from_ref` becomes an alias of it."""
        return await self._client._run(operations.merge_customers(customer_ref, from_ref), timeout, headers)

    @rpc("ForgetCustomer")
    async def forget_me(
        self, customer_ref: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.ForgottenCustomer:
        """The caller's "do not remember me": erases them and marks their identifiers; not billed."""
        return await self._client._run(operations.forget_customer(customer_ref), timeout, headers)

    @rpc("LiftForgetMe")
    async def lift_forget_me(
        self,
        *,
        ani: str | None = None,
        external_id: tuple[str, str] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.LiftedMark:
        """Lifts the mark covering a number or an external id: the next call is remembered again."""
        return await self._client._run(operations.lift_forget_me(ani, external_id), timeout, headers)

    @rpc("UnlinkIdentifier")
    async def unlink(
        self,
        customer_ref: str,
        *,
        ani: str | None = None,
        external_id: tuple[str, str] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CustomerRecord:
        return await self._client._run(operations.unlink_identifier(customer_ref, ani, external_id), timeout, headers)
