curl -s -w '\n' http://127.0.0.1:8080/v1/customers/forget-me/lift \
  -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY" -H 'Content-Type: application/json' \
  -d '{"ani": "+14155550123"}'
