"""Start, end, start again with the `caller-context` package: the second start remembers the first call.

    pip install ./clients/python
    CALLER_CONTEXT_API_KEY=sk_test_... python3 examples/python/client.py [http://127.0.0.1:8080]
"""

import os
import sys
import uuid

from caller_context import CallerContextClient, IdentityHints, ValidationError


def main() -> None:
    base_url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
    hints = IdentityHints(ani="+14155550123", external_ids={"crm_id": f"C-{uuid.uuid4().hex[:8]}"})

    with CallerContextClient(base_url, os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
        first = callers.start(f"call-{uuid.uuid4()}", hints)
        print("first start:", first.customer_ref, first.identity.recommendation)

        callers.end(
            first.call_id,
            customer_ref=first.customer_ref,
            intent="billing_question",
            variables={"preferred_language": "de"},
        )

        second = callers.start(f"call-{uuid.uuid4()}", hints)
        print("second start:", second.customer_ref, second.identity.recommendation)
        print("open intents:", [intent.intent for intent in second.open_intents])
        print("variables:", {name: variable.value for name, variable in second.variables.items()})

        # A refused request: a ValidationError naming every offending field.
        try:
            callers.start("", IdentityHints())
        except ValidationError as error:
            print("refused:", error.status, error.message)
            for issue in error.issues:
                print("  ", ".".join(issue.path), "-", issue.message)


if __name__ == "__main__":
    main()
