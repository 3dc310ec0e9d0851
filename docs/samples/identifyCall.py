import os

from caller_context import CallerContextClient, IdentityHints

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    call = callers.identify("call-0001", IdentityHints(external_ids={"account_number": "AC-1001"}), verified=True)
    print(call.customer_ref, call.identity.confidence)
