import os

from caller_context import CallerContextClient

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    figures = callers.contact_figures("2026-11-01", "2026-11-30")
    print(figures["overall"], figures["repeat_window_days"])
