import Fastify from "fastify";

// The HTTP ceiling: a bare Fastify JSON route on this machine. It parses a
// JSON body like the service's and answers canned JSON of the same size and
// shape, with no database, guards or protobuf. Run as a child process:
// `node bench/service/bare-server.ts`; it prints {"msg":"bare listening","url":...}.

const CUSTOMER_REF = "6f1c2b0e-8d3a-4c57-9b1e-2f4a6c8d0e13";

const startAnswer = {
  call_id: "",
  customer_ref: CUSTOMER_REF,
  call_start: "2026-11-21T10:00:00.000Z",
  identity: { confidence: 0.92, level: "very_high", sources: ["ani:mobile", "external_id"], recommendation: "reuse" },
  open_intents: [{ intent: "billing_question", status: "open", attempt_count: 2 }],
  variables: {
    preferred_language: { value: "en", source: "ivr", ttl_seconds: 2592000 },
    last_agent: { value: "Morgan", source: "ivr", ttl_seconds: 2592000 },
  },
};

const endAnswer = {
  call_id: "",
  customer_ref: CUSTOMER_REF,
  call_start: "2026-11-21T10:00:00.000Z",
  call_end: "2026-11-21T10:00:42.100Z",
  duration_seconds: 42.1,
  intents_updated: 1,
  variables_updated: 3,
};

const app = Fastify({ logger: false });
app.post("/v1/calls/start", async (request) => ({ ...startAnswer, call_id: callIdOf(request.body) }));
app.post("/v1/calls/end", async (request) => ({ ...endAnswer, call_id: callIdOf(request.body) }));

function callIdOf(body: unknown): string {
  const id = (body as { call_id?: unknown } | null)?.call_id;
  return typeof id === "string" ? id : "";
}

const url = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ msg: "bare listening", url })}\n`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
