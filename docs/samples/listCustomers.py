import os

from caller_context import CallerContextClient

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    customers = callers.customers.list(ani="+14155550123")
    print([customer.customer_ref for customer in customers])
