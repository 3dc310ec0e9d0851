curl -s -w '\n' 'http://127.0.0.1:8080/v1/customers?ani=%2B14155550123' -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY"
