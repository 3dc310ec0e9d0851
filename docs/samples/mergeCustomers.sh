curl -s -w '\n' http://127.0.0.1:8080/v1/customers/6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c/merge \
  -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY" -H 'Content-Type: application/json' \
  -d '{"from": "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"}'
