import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const ended = await callers.end({
  callId: "call-0001",
  customerRef: "6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c",
  intent: "billing_question",
  variables: { preferred_name: "Ann" },
  summary: "Asked about a charge.",
});
console.log(ended.customerRef, ended.intentsUpdated, ended.variablesUpdated);
callers.close();
