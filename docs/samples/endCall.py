import os

from caller_context import CallerContextClient

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    ended = callers.end(
        "call-0001",
        customer_ref="6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c",
        intent="billing_question",
        intent_status="open",
        variables={"preferred_name": "Ann"},
        summary="Asked about a charge.",
    )
    print(ended.customer_ref, ended.intents_updated, ended.variables_updated)
