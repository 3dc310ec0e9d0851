import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const exported = await callers.contactFiguresCsv({ from: "2026-11-01", to: "2026-11-30" });
console.log(exported.csv);
callers.close();
