import os

from caller_context import CallerContextClient

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    print(callers.contact_figures_csv("2026-11-01", "2026-11-30"))
