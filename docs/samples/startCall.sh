curl -s -w '\n' http://127.0.0.1:8080/v1/calls/start \
  -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY" -H 'Content-Type: application/json' \
  -d '{"call_id": "call-0001", "identity_hints": {"ani": "+14155550123"}, "telco": {"line_type": "mobile"}}'
