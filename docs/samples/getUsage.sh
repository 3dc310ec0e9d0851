curl -s -w '\n' http://127.0.0.1:8080/v1/usage -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY"
