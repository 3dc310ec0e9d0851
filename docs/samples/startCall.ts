import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const call = await callers.start({ callId: "call-0001", identityHints: { ani: "+14155550123" } });
console.log(
  call.customerRef,
  call.identity?.recommendation,
  call.openIntents.map((intent) => intent.intent),
);
callers.close();
