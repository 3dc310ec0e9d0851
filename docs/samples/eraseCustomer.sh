curl -s -w '\n' -X DELETE http://127.0.0.1:8080/v1/customers/6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY"
