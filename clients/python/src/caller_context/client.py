"""The blocking client: one `httpx.Client`, every public RPC of CallerContextService and CustomerService."""

from __future__ import annotations

import builtins
import time
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


class CallerContextClient:
    """Start, end, identify, usage and customer records over the REST API.

    `timeout` (seconds, default 5) is each call's deadline, retries included; every method takes its own
    `timeout=` too, and `headers=` for extra request headers (e.g. X-Request-Id). Pass `http_client` to use your
    own `httpx.Client` (proxies, TLS, event hooks); the client then leaves closing it to you.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._base_url = checked_base_url(base_url)
        self._auth = {"Authorization": f"Bearer {checked_api_key(api_key)}", "User-Agent": USER_AGENT}
        self._timeout = checked_timeout(timeout)
        self._retry = retry or RetryPolicy()
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client()
        self.customers = CustomerRecords(self)

    @rpc("StartCall")
    def start(
        self,
        call_id: str,
        identity_hints: IdentityHints,
        *,
        telco: Telco | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CallContext:
        """Identifies the caller and returns their context. Retried only when the service certainly did not act."""
        return self._run(operations.start_call(call_id, identity_hints, telco), timeout, headers)

    @rpc("EndCall")
    def end(
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
        return self._run(operation, timeout, headers)

    @rpc("IdentifyCall")
    def identify(
        self,
        call_id: str,
        identity_hints: IdentityHints,
        *,
        verified: bool = False,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CallContext:
        """Identifies the caller of a started call again (`verified=True` when the agent checked who they are)."""
        return self._run(operations.identify_call(call_id, identity_hints, verified), timeout, headers)

    @rpc("GetUsage")
    def usage(self, *, timeout: float | None = None, headers: Mapping[str, str] | None = None) -> models.Usage:
        """The quota and rate limit left to the key's account; not billed."""
        return self._run(operations.get_usage(), timeout, headers)

    @rpc("GetContactFigures")
    def contact_figures(
        self, from_day: str, to_day: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.Json:
        """First-contact resolution and repeat contacts of UTC days from_day..to_day, with the period before."""
        return self._run(operations.get_contact_figures(from_day, to_day), timeout, headers)

    @rpc("ExportContactFigures")
    def contact_figures_csv(
        self, from_day: str, to_day: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> str:
        """The same figures as CSV text."""
        return self._run(operations.export_contact_figures(from_day, to_day), timeout, headers)

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> CallerContextClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _run(self, operation: Operation[T], timeout: float | None, headers: Mapping[str, str] | None) -> T:
        deadline = now() + (self._timeout if timeout is None else timeout)
        attempted = 0
        while True:
            attempted += 1
            remaining = deadline - now()
            if remaining <= 0:
                raise DeadlineExceededError("The deadline passed before an answer")
            try:
                return self._attempt(operation, remaining, headers)
            except CallerContextError as error:
                if attempted >= self._retry.max_attempts or not is_retryable(error, operation.safety):
                    raise
                wait = backoff_seconds(self._retry, attempted, error)
                if now() + wait >= deadline:
                    raise
                time.sleep(wait)

    def _attempt(self, operation: Operation[T], remaining: float, headers: Mapping[str, str] | None) -> T:
        arguments = request_arguments(operation, remaining, {**self._auth, **(headers or {})})
        arguments["url"] = self._base_url.join(arguments["url"].lstrip("/"))
        try:
            response = self._http.request(**arguments)
        except httpx.TransportError as error:
            raise error_from_transport(error) from error
        return read_answer(operation, response)


class CustomerRecords:
    """Look up, list, erase, merge, forget and unlink customer records (`client.customers`)."""

    def __init__(self, client: CallerContextClient) -> None:
        self._client = client

    @rpc("GetCustomer")
    def get(
        self, customer_ref: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.CustomerRecord:
        return self._client._run(operations.get_customer(customer_ref), timeout, headers)

    @rpc("ListCustomers")
    def list(
        self,
        *,
        ani: str | None = None,
        external_id: tuple[str, str] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> builtins.list[models.CustomerSummary]:
        """The customers (at most one) a number or an external id `(key, value)` belongs to."""
        return self._client._run(operations.list_customers(ani, external_id), timeout, headers)

    @rpc("EraseCustomer")
    def erase(
        self, customer_ref: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.ErasedCustomer:
        """Erases the customer and everything that holds their data; not billed."""
        return self._client._run(operations.erase_customer(customer_ref), timeout, headers)

    @rpc("MergeCustomers")
    def merge(
        self,
        customer_ref: str,
        from_ref: str,
        *,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CustomerRecord:
        """Moves everything of `from_ref` to `customer_ref`; `from_ref` becomes an alias of it."""
        return self._client._run(operations.merge_customers(customer_ref, from_ref), timeout, headers)

    @rpc("ForgetCustomer")
    def forget_me(
        self, customer_ref: str, *, timeout: float | None = None, headers: Mapping[str, str] | None = None
    ) -> models.ForgottenCustomer:
        """The caller's "do not remember me": erases them and marks their identifiers; not billed."""
        return self._client._run(operations.forget_customer(customer_ref), timeout, headers)

    @rpc("LiftForgetMe")
    def lift_forget_me(
        self,
        *,
        ani: str | None = None,
        external_id: tuple[str, str] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.LiftedMark:
        """Lifts the mark covering a number or an external id: the next call is remembered again."""
        return self._client._run(operations.lift_forget_me(ani, external_id), timeout, headers)

    @rpc("UnlinkIdentifier")
    def unlink(
        self,
        customer_ref: str,
        *,
        ani: str | None = None,
        external_id: tuple[str, str] | None = None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> models.CustomerRecord:
        return self._client._run(operations.unlink_identifier(customer_ref, ani, external_id), timeout, headers)
