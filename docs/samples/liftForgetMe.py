import os

from caller_context import CallerContextClient

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    lifted = callers.customers.lift_forget_me(ani="+14155550123")
    print(lifted)
