"""examples/python/client.py runs against the real service with the package as installed."""

from __future__ import annotations

import os
import subprocess
import sys

from service import Account, ServiceProcess, repo_root


def test_the_example_does_start_end_start_and_reads_a_refusals_issues(
    service: ServiceProcess, account: Account
) -> None:
    finished = subprocess.run(
        [sys.executable, str(repo_root() / "examples/python/client.py"), service.url],
        env={**os.environ, "CALLER_CONTEXT_API_KEY": account.api_key},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    first, second, intents, variables, refused, *issues = finished.stdout.strip().split("\n")
    customer_ref = first.split()[2]
    assert first == f"first start: {customer_ref} ignore"
    assert second in (f"second start: {customer_ref} reuse", f"second start: {customer_ref} confirm")
    assert intents == "open intents: ['billing_question']"
    assert variables == "variables: {'preferred_language': 'de'}"
    assert refused == "refused: 400 Validation failed"
    paths = {line.strip().split(" - ")[0] for line in issues}
    assert {"call_id", "identity_hints"} <= paths
