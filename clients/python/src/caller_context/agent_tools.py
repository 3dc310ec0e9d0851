"""The words of the two function tools a voice agent's LLM is given (`identify_caller`, `record_call_outcome`), as
the LiveKit integration words them (call-tools.ts): what each tool and argument is for, and what a tool answers
when it has nothing else to say. Each Python integration builds the tools in its framework's own shape from these.
"""

from __future__ import annotations

IDENTIFY_DESCRIPTION = (
    "Call when the caller tells you who they are (their account number, or the phone number on their account). "
    "Returns what may be shared with them; details that need verification stay held back unless the "
    "application has verified the caller."
)
ACCOUNT_NUMBER_DESCRIPTION = "The account number the caller gave, if any"
PHONE_NUMBER_DESCRIPTION = "The phone number on the caller's account, in E.164, if given"

RECORD_DESCRIPTION = (
    "Record the topic of the call and whether it was resolved, plus facts worth remembering for the next call "
    "(not card numbers, passwords or national ids). Call it before the call ends; a later call replaces the "
    "topic's status."
)
INTENT_DESCRIPTION = "Short snake_case topic, e.g. billing_question"
STATUS_DESCRIPTION = "resolved when the caller's need was met during this call"
VARIABLES_DESCRIPTION = "Facts to remember, e.g. preferred_name"
SUMMARY_DESCRIPTION = "One or two sentences about this call, for whoever takes the caller's next call"

ASK_WHO = "Ask the caller for their account number or phone number first."
NO_RECORDS = "No caller records are available on this call."
LOOKUP_FAILED = "The caller could not be looked up just now; carry on without it."
RECORDED = "Recorded."
