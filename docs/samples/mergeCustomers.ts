import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const merged = await callers.customers.merge(
  "6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c",
  "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
);
console.log(merged.customerRef, merged.identifiers?.ani);
callers.close();
