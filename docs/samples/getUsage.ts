import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const usage = await callers.usage();
console.log(usage.quota?.remaining, usage.rateLimit?.limit);
callers.close();
