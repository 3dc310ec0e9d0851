"""The Python example of every public route (docs/samples/*.py, shown at /docs), run against the real service.

Each runs as written but for the address and the customer refs, which become the service's and real customers',
made first as test/docs/sample-setups.ts makes them for the curl and TypeScript examples.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable

import httpx
import pytest

from service import Account, ServiceProcess, repo_root

SAMPLE_URL = "http://127.0.0.1:8080"
SAMPLE_REF = ("6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c", "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
CALLER = "+14155550123"


def python_samples() -> dict[str, str]:
    """operationId → its Python example, from the OpenAPI document the service serves at /docs."""
    document = json.loads((repo_root() / "gen/openapi.json").read_text())
    samples: dict[str, str] = {}
    for path, item in document["paths"].items():
        if not path.startswith("/v1/") or path.startswith("/v1/integrations/"):
            continue
        for operation in item.values():
            python = [s["source"] for s in operation.get("x-codeSamples", []) if s["lang"] == "Python"]
            samples[operation["operationId"]] = python[0] if python else ""
    return samples


SAMPLES = python_samples()


class Setup:
    def __init__(self, http: httpx.Client) -> None:
        self._http = http

    def start(self, call_id: str, ani: str) -> str:
        started = self._http.post("/v1/calls/start", json={"call_id": call_id, "identity_hints": {"ani": ani}})
        assert started.status_code == 200, started.text
        return str(started.json()["customer_ref"])

    def started_call(self) -> list[str]:
        return [self.start("call-0001", CALLER)]

    def two_customers(self) -> list[str]:
        return [self.start("call-0001", CALLER), self.start("call-0002", "+14155550199")]

    def forgotten(self) -> list[str]:
        [ref] = self.started_call()
        assert self._http.post(f"/v1/customers/{ref}/forget-me", json={}).status_code == 200
        return [ref]


SETUPS: dict[str, Callable[[Setup], list[str]]] = {
    "startCall": lambda _: [],
    "endCall": Setup.started_call,
    "identifyCall": Setup.started_call,
    "getUsage": lambda _: [],
    "getCustomer": Setup.started_call,
    "listCustomers": Setup.started_call,
    "eraseCustomer": Setup.started_call,
    "mergeCustomers": Setup.two_customers,
    "unlinkIdentifier": Setup.started_call,
    "forgetCustomer": Setup.started_call,
    "liftForgetMe": Setup.forgotten,
    "check": lambda _: [],
    "getContactFigures": lambda _: [],
    "exportContactFigures": lambda _: [],
}


def test_every_public_route_has_a_python_example_and_a_setup() -> None:
    assert len(SAMPLES) >= 12
    assert [name for name, source in SAMPLES.items() if source == ""] == []
    assert set(SETUPS) == set(SAMPLES)


@pytest.mark.parametrize("operation_id", sorted(SAMPLES))
def test_the_python_example_runs(operation_id: str, service: ServiceProcess, account: Account) -> None:
    with httpx.Client(base_url=service.url, headers={"Authorization": f"Bearer {account.api_key}"}) as http:
        refs = SETUPS[operation_id](Setup(http))
    source = SAMPLES[operation_id].replace(SAMPLE_URL, service.url)
    for written, real in zip(SAMPLE_REF[: len(refs)], refs, strict=True):
        source = source.replace(written, real)
    env = {**os.environ, "CALLER_CONTEXT_API_KEY": account.api_key}
    ran = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() != ""
