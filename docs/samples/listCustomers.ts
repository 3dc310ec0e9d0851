import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const customers = await callers.customers.list({ ani: "+14155550123" });
console.log(customers.map((customer) => customer.customerRef));
callers.close();
