import http from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type CallClient, createCallClient, startBody } from "../helpers/call-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach a collector over OTLP/HTTP:
// here a local HTTP server that keeps what it receives.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string } }[];
}

let collector: http.Server;
const received: OtlpSpan[] = [];
let server: TestServer;
let stopped = false;
let calls: CallClient;

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const payload = JSON.parse(body);
      for (const resource of payload.resourceSpans) {
        for (const scope of resource.scopeSpans) received.push(...scope.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as { port: number };
  server = await startTestServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  if (!stopped) await server.stop();
  await new Promise((resolve) => collector.close(resolve));
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

test("a start over REST and over gRPC each makes a server span in the caller's trace, with its statements as children", async () => {
  const { apiKey } = await createAccountWithKey(server.url);
  for (const via of ["rest", "grpc"] as const) {
    const outcome = await calls.start(via, apiKey, startBody(), { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` });
    expect(outcome.status).toBe(200);
  }
  // Closing the server flushes the batch.
  await server.stop();
  stopped = true;
  const starts = received.filter((span) => span.name === "callercontext.v1.CallerContextService/StartCall");
  expect(starts).toHaveLength(2);
  const systems = starts.map((span) => span.attributes.find((a) => a.key === "rpc.system")?.value.stringValue);
  expect(systems.sort()).toEqual(["grpc", "rest"]);
  for (const start of starts) {
    expect(start.traceId).toBe(TRACE_ID);
    expect(start.parentSpanId).toBe("00f067aa0ba902b7");
    const statements = received.filter((span) => span.parentSpanId === start.spanId);
    expect(statements.length).toBeGreaterThan(0);
    const text = statements[0].attributes.find((a) => a.key === "db.query.text")?.value.stringValue;
    expect(text).toMatch(/\$1/);
    expect(text).not.toContain(apiKey);
  }
});
