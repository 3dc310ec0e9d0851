curl -s -w '\n' http://127.0.0.1:8080/v1/calls/end \
  -H "Authorization: Bearer $CALLER_CONTEXT_API_KEY" -H 'Content-Type: application/json' \
  -H 'Idempotency-Key: end-call-0001' \
  -d '{"call_id": "call-0001", "customer_ref": "6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c", "intent": "billing_question",
       "intent_status": "open", "variables": {"preferred_name": "Ann"}, "summary": "Asked about a charge."}'
