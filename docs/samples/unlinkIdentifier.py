import os

from caller_context import CallerContextClient

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    unlinked = callers.customers.unlink("6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c", ani="+14155550123")
    print(unlinked)
