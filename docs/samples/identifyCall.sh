curl -s -w '\n' http://127.0.0.1:8080/v1/calls/identify \
  -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY" -H 'Content-Type: application/json' \
  -d '{"call_id": "call-0001", "identity_hints": {"external_ids": {"account_number": "AC-1001"}}, "verified": true}'
