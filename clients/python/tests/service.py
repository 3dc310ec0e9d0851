"""The real service for the tests: `node src/main.ts` on port 0, found through the URL it logs when ready.

On the embedded database (DATA_DIR=:memory:) by default; on a fresh PostgreSQL database, created here and
dropped at the end, when PG_TEST_URL or DATABASE_URL names a server.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

ADMIN_TOKEN = "test-admin-token-0123456789abcdefghij"
SECRETS_KEY = "dGVzdC1zZWNyZXRzLWtleS0wMTIzNDU2Nzg5YWJjZGU="
START_TIMEOUT_S = 90.0


def repo_root() -> Path:
    """The repository holding the service: CALLER_CONTEXT_REPO, or the one these tests sit in."""
    explicit = os.environ.get("CALLER_CONTEXT_REPO")
    if explicit:
        return Path(explicit)
    return Path(__file__).resolve().parents[3]


@dataclass
class ServiceProcess:
    url: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_service(extra_env: Mapping[str, str]) -> ServiceProcess:
    root = repo_root()
    env = {
        **os.environ,
        "PORT": "0",
        "HOST": "127.0.0.1",
        "ADMIN_TOKEN": ADMIN_TOKEN,
        "SECRETS_KEY": SECRETS_KEY,
        "METRICS_PORT": "0",
        # The tests make their accounts and keys through the admin API on the service's own port: the documented
        # way back from the loopback admin listener (docs/operations.md, Admin listener).
        "ADMIN_LISTEN": "public",
        "LOG_LEVEL": "info",
        # The suites send bursts on a busy machine on purpose; admission control has suites of its own.
        "ADMISSION_INITIAL_LIMIT": "10000",
        "ADMISSION_MIN_LIMIT": "10000",
        "ADMISSION_MAX_LIMIT": "10000",
        "ADMISSION_MAX_EVENT_LOOP_DELAY_MS": "0",
        **extra_env,
    }
    process = subprocess.Popen(
        [str(root / "node_modules/.bin/node"), "src/main.ts"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output: list[str] = []
    found: queue.Queue[str | None] = queue.Queue()

    def drain() -> None:
        # Read to the end, so that a chatty server never blocks on a full pipe.
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line.rstrip("\n"))
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("msg") == "caller context ready" and "url" in entry:
                found.put(str(entry["url"]))
        found.put(None)

    threading.Thread(target=drain, daemon=True).start()
    try:
        url = found.get(timeout=START_TIMEOUT_S)
    except queue.Empty:
        url = None
    if url is None:
        process.kill()
        process.wait()
        raise RuntimeError("the service did not start:\n" + "\n".join(output[-40:]))
    return ServiceProcess(url=url, process=process, output=output)


@dataclass
class Database:
    env: dict[str, str]
    admin_url: str | None = None
    name: str | None = None

    def drop(self) -> None:
        if self.admin_url and self.name:
            _psql(self.admin_url, f'drop database if exists "{self.name}" with (force)')


def create_database() -> Database:
    server_url = os.environ.get("PG_TEST_URL") or os.environ.get("DATABASE_URL")
    if not server_url:
        return Database(env={"DATA_DIR": ":memory:"})
    parts = urlsplit(server_url)
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    name = f"cc_py_{uuid.uuid4().hex[:12]}"
    _psql(admin_url, f'create database "{name}"')
    return Database(env={"DATABASE_URL": urlunsplit(parts._replace(path=f"/{name}"))}, admin_url=admin_url, name=name)


def _psql(url: str, statement: str) -> None:
    subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", statement], check=True, capture_output=True)


@dataclass(frozen=True)
class Account:
    account_id: str
    billing_account_id: str
    api_key: str
    key_id: str


class Admin:
    """The admin REST API, as an operator uses it: accounts, keys, quota."""

    def __init__(self, base_url: str) -> None:
        self._http = httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30)

    def _post(self, path: str, body: Mapping[str, object]) -> dict[str, object]:
        response = self._http.post(path, json=dict(body))
        if response.status_code != 200:
            raise RuntimeError(f"POST {path}: {response.status_code} {response.text}")
        answer: dict[str, object] = response.json()
        return answer

    def create_account(self, *, tier: str = "growth", quota: int = 100_000) -> Account:
        created = self._post("/admin/v1/accounts", {"name": "Python client tests", "tier": tier, "quota": quota})
        account = created["account"]
        assert isinstance(account, dict)
        key = self._post(f"/admin/v1/accounts/{account['account_id']}/keys", {"kind": "test"})
        return Account(
            account_id=str(account["account_id"]),
            billing_account_id=str(account["billing_account_id"]),
            api_key=str(key["api_key"]),
            key_id=str(key["key_id"]),
        )

    def set_quota(self, account_id: str, quota: int) -> None:
        self._post(f"/admin/v1/accounts/{account_id}/quota", {"quota_remaining": quota})

    def revoke_key(self, key_id: str) -> None:
        self._post(f"/admin/v1/keys/{key_id}/revoke", {})

    def close(self) -> None:
        self._http.close()
