import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const call = await callers.identify({
  callId: "call-0001",
  identityHints: { externalIds: { account_number: "AC-1001" } },
  verified: true,
});
console.log(call.customerRef, call.identity?.confidence);
callers.close();
