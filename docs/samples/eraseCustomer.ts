import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const erased = await callers.customers.erase("6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c");
console.log(erased.customerRef, erased.erased);
callers.close();
