import { createCallerContextClient } from "@caller-context/client";

const callers = createCallerContextClient({
  baseUrl: "http://127.0.0.1:8080",
  apiKey: process.env.CALLER_CONTEXT_API_KEY ?? "",
});
const figures = await callers.contactFigures({ from: "2026-11-01", to: "2026-11-30" });
console.log(figures.overall, figures.byIntent.length, figures.repeatWindowDays);
callers.close();
