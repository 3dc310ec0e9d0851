import { randomUUID } from "node:crypto";
import http from "node:http";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { type CallClient, createCallClient, startBody } from "../helpers/call-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach a collector over OTLP/HTTP:
// here a local HTTP server that keeps what it receives.

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
}

// OTLP's enums: SPAN_KIND_SERVER 2, SPAN_KIND_CLIENT 3; STATUS_CODE_UNSET 0, STATUS_CODE_ERROR 2.
const SERVER = 2;
const CLIENT = 3;

let collector: http.Server;
const received: OtlpSpan[] = [];
const resources: Record<string, string>[] = [];
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
        resources.push(
          Object.fromEntries(
            resource.resource.attributes.map((a: { key: string; value: OtlpValue }) => [a.key, a.value.stringValue]),
          ),
        );
        for (const scope of resource.scopeSpans) received.push(...scope.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as { port: number };
  server = await startTestServer({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_RESOURCE_ATTRIBUTES: "service.version=1.2.3,deployment.environment.name=staging%20eu",
    },
  });
  calls = createCallClient(server.url);
});
afterAll(async () => {
  calls.close();
  if (!stopped) await server.stop();
  await new Promise((resolve) => collector.close(resolve));
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};
const statusOf = (span: OtlpSpan) => span.status?.code ?? 0;

test("spans follow OpenTelemetry's conventions for HTTP, Connect, gRPC and database clients, in the caller's trace", async () => {
  const { apiKey } = await createAccountWithKey(server.url);
  const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
  for (const via of ["rest", "grpc"] as const) {
    expect((await calls.start(via, apiKey, startBody(), { traceparent })).status).toBe(200);
  }
  const connect = createClient(
    CallerContextService,
    createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }),
  );
  await connect.startCall(
    { callId: `connect-${randomUUID()}`, identityHints: { ani: "+14155550177" } },
    { headers: { authorization: `Bearer ${apiKey}`, traceparent } },
  );
  const missing = await request(server.url, "GET", `/v1/customers/${randomUUID()}`, { token: apiKey });
  expect(missing.status).toBe(404);
  // Closing the server flushes the batch.
  await server.stop();
  stopped = true;

  const restStart = received.find((span) => span.name === "POST /v1/calls/start");
  expect(restStart).toBeDefined();
  expect([restStart!.kind, statusOf(restStart!)]).toEqual([SERVER, 0]);
  expect(attribute(restStart!, "http.request.method")).toBe("POST");
  expect(attribute(restStart!, "http.route")).toBe("/v1/calls/start");
  expect(attribute(restStart!, "http.response.status_code")).toBe(200);
  expect(attribute(restStart!, "rpc.system")).toBeUndefined();

  const rpcStarts = received.filter((span) => span.name === "callercontext.v1.CallerContextService/StartCall");
  const bySystem = Object.fromEntries(rpcStarts.map((span) => [attribute(span, "rpc.system"), span]));
  expect(Object.keys(bySystem).sort()).toEqual(["connect_rpc", "grpc"]);
  expect(attribute(bySystem.grpc!, "rpc.grpc.status_code")).toBe(0);
  for (const span of rpcStarts) {
    expect([span.kind, statusOf(span)]).toEqual([SERVER, 0]);
    expect(attribute(span, "rpc.service")).toBe("callercontext.v1.CallerContextService");
    expect(attribute(span, "rpc.method")).toBe("StartCall");
  }

  // A 404 is the client's error: the server span's status stays unset.
  const notFound = received.find((span) => span.name === "GET /v1/customers/{customer_ref}");
  expect(attribute(notFound!, "http.response.status_code")).toBe(404);
  expect(statusOf(notFound!)).toBe(0);

  // Every database span is named "<operation> <table>", never after the text's first word.
  const statements = received.filter((span) => span.kind === CLIENT);
  expect(statements.length).toBeGreaterThan(0);
  for (const span of statements) {
    expect(span.name).toMatch(/^(select|insert|update|delete|merge)( [a-z_]+)?$/);
    expect(span.name.startsWith(String(attribute(span, "db.operation.name")))).toBe(true);
    expect(attribute(span, "db.system.name")).toBe("postgresql");
  }
  expect(statements.map((span) => span.name)).toContain("insert calls");

  // Each start continues the caller's trace, with its statements as children (text with placeholders only).
  for (const start of [restStart!, ...rpcStarts]) {
    expect([start.traceId, start.parentSpanId]).toEqual([TRACE_ID, "00f067aa0ba902b7"]);
    const children = received.filter((span) => span.parentSpanId === start.spanId);
    expect(children.length).toBeGreaterThan(0);
    for (const child of children) {
      expect(String(attribute(child, "db.query.text"))).not.toContain(apiKey);
    }
  }

  // OTEL_RESOURCE_ATTRIBUTES reaches the resource, beside the service's name.
  expect(resources[0]).toMatchObject({
    "service.name": "caller-context",
    "service.version": "1.2.3",
    "deployment.environment.name": "staging eu",
  });
});
