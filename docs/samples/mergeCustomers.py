import os

from caller_context import CallerContextClient

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    merged = callers.customers.merge("6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c", "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
    print(merged.customer_ref, merged.identifiers)
