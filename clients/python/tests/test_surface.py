"""Every public RPC has a method in both clients, read from proto/ rather than from a hand list."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from caller_context import AsyncCallerContextClient, AsyncCustomerRecords, CallerContextClient, CustomerRecords

from service import repo_root

PUBLIC_SERVICES = ("CallerContextService", "CustomerService")


def public_rpcs() -> set[str]:
    rpcs: set[str] = set()
    for proto in (repo_root() / "proto/callercontext/v1").glob("*.proto"):
        text = proto.read_text()
        for service in re.finditer(r"^service (\w+) \{(.*?)^\}", text, re.MULTILINE | re.DOTALL):
            if service.group(1) in PUBLIC_SERVICES:
                rpcs.update(re.findall(r"^\s*rpc (\w+)\(", service.group(2), re.MULTILINE))
    return rpcs


def methods_by_rpc(*classes: type) -> dict[str, Callable[..., Any]]:
    found: dict[str, Callable[..., Any]] = {}
    for cls in classes:
        for _, method in inspect.getmembers(cls, inspect.isfunction):
            name = getattr(method, "__rpc__", None)
            if name is not None:
                found[name] = method
    return found


def test_the_proto_declares_the_public_rpcs() -> None:
    # Guards the parser: an empty set would make the checks below pass for nothing.
    assert {"StartCall", "EndCall", "GetCustomer", "ForgetCustomer"} <= public_rpcs()


def test_every_public_rpc_has_a_method_in_the_blocking_client() -> None:
    assert set(methods_by_rpc(CallerContextClient, CustomerRecords)) == public_rpcs()


def test_every_public_rpc_has_a_method_in_the_asyncio_client() -> None:
    assert set(methods_by_rpc(AsyncCallerContextClient, AsyncCustomerRecords)) == public_rpcs()


def test_the_asyncio_client_takes_the_same_arguments_as_the_blocking_one() -> None:
    blocking = methods_by_rpc(CallerContextClient, CustomerRecords)
    asyncio = methods_by_rpc(AsyncCallerContextClient, AsyncCustomerRecords)
    for rpc, method in blocking.items():
        assert inspect.iscoroutinefunction(asyncio[rpc]), rpc
        assert method.__name__ == asyncio[rpc].__name__, rpc
        assert list(inspect.signature(method).parameters) == list(inspect.signature(asyncio[rpc]).parameters), rpc
