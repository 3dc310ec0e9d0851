import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const unlinked = await callers.customers.unlink("6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c", { ani: "+14155550123" });
console.log(unlinked.customerRef);
callers.close();
