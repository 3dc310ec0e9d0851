curl -s -w '\n' 'http://127.0.0.1:8080/v1/analytics/contact-figures?from=2026-11-01&to=2026-11-30' \
  -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY"
