import os

from caller_context import CallerContextClient, IdentityHints, Telco

with CallerContextClient("http://127.0.0.1:8080", os.environ["CALLER_CONTEXT_API_KEY"]) as callers:
    call = callers.start("call-0001", IdentityHints(ani="+14155550123"), telco=Telco(line_type="mobile"))
    print(call.customer_ref, call.identity.recommendation, [intent.intent for intent in call.open_intents])
