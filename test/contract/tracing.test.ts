import { randomUUID } from "node:crypto";
import http from "node:http";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { createCallClient, startBody } from "../helpers/call-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { createRpcClient } from "../helpers/rpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach a collector over OTLP/HTTP:
// here a local HTTP server that keeps what it receives. The traffic is sent
// once, the server closed (which flushes the batch), and each test reads the
// spans it cares about.

const getCustomer = CustomerService.method.getCustomer as unknown as DescMethodUnary;

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
const ERROR = 2;

let collector: http.Server;
const received: OtlpSpan[] = [];
const resources: Record<string, string>[] = [];
let apiKey: string;

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

/** Starts the server with OpenTelemetry's own variables in the environment, where its SDK reads them. */
async function startWithResourceVariables(env: Record<string, string>): Promise<TestServer> {
  const resourceVariables = {
    OTEL_RESOURCE_ATTRIBUTES:
      "service.name=from-attributes,service.version=1.2.3,deployment.environment.name=staging%20eu",
    OTEL_SERVICE_NAME: "caller-context-eu",
  };
  // The process is shared with other test files: each variable gets back the value it had.
  const previous = Object.keys(resourceVariables).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, resourceVariables);
  try {
    return await startTestServer({ env });
  } finally {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

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
  const server = await startWithResourceVariables({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
  const calls = createCallClient(server.url);
  const rpc = createRpcClient(server.url);
  try {
    ({ apiKey } = await createAccountWithKey(server.url));
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
    // The client's errors: a 404 over REST, NOT_FOUND and INVALID_ARGUMENT over gRPC.
    const missing = await request(server.url, "GET", `/v1/customers/${randomUUID()}`, { token: apiKey });
    expect(missing.status).toBe(404);
    const notFound = await rpc.call("grpc", getCustomer, apiKey, { customer_ref: randomUUID() });
    expect(notFound.grpcError?.code).toBe(status.NOT_FOUND);
    const invalid = await calls.start("grpc", apiKey, { call_id: "", identity_hints: {} });
    expect(invalid.grpcError?.code).toBe(status.INVALID_ARGUMENT);
    // The server's: with its database gone, a start is a 503 over REST and UNAVAILABLE over gRPC.
    await server.context.database.close();
    expect((await calls.start("rest", apiKey, startBody())).status).toBe(503);
    expect((await calls.start("grpc", apiKey, startBody())).grpcError?.code).toBe(status.UNAVAILABLE);
  } finally {
    calls.close();
    rpc.close();
    // Closing the server flushes the batch.
    await server.stop();
  }
});
afterAll(async () => {
  await new Promise((resolve) => collector.close(resolve));
});

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};
const statusOf = (span: OtlpSpan) => span.status?.code ?? 0;
const GRPC_START = "callercontext.v1.CallerContextService/StartCall";
/** The one span with this name whose attribute has this value. */
const spanWith = (name: string, key: string, value: string | number) => {
  const found = received.filter((span) => span.name === name && attribute(span, key) === value);
  expect(found, `${name} with ${key}=${value}`).toHaveLength(1);
  return found[0]!;
};

test("spans follow OpenTelemetry's conventions for HTTP, Connect, gRPC and database clients, in the caller's trace", () => {
  const restStart = spanWith("POST /v1/calls/start", "http.response.status_code", 200);
  expect([restStart.kind, statusOf(restStart)]).toEqual([SERVER, 0]);
  expect(attribute(restStart, "http.request.method")).toBe("POST");
  expect(attribute(restStart, "http.route")).toBe("/v1/calls/start");
  expect(attribute(restStart, "url.scheme")).toBe("http");
  // Left out on purpose: a customer's path would carry its customer_ref.
  expect(attribute(restStart, "url.path")).toBeUndefined();
  expect(attribute(restStart, "rpc.system")).toBeUndefined();

  const rpcStarts = [
    spanWith(GRPC_START, "rpc.grpc.status_code", 0),
    spanWith(GRPC_START, "rpc.system", "connect_rpc"),
  ];
  expect(rpcStarts.map((span) => attribute(span, "rpc.system"))).toEqual(["grpc", "connect_rpc"]);
  for (const span of rpcStarts) {
    expect([span.kind, statusOf(span)]).toEqual([SERVER, 0]);
    expect(attribute(span, "rpc.service")).toBe("callercontext.v1.CallerContextService");
    expect(attribute(span, "rpc.method")).toBe("StartCall");
  }

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
  for (const start of [restStart, ...rpcStarts]) {
    expect([start.traceId, start.parentSpanId]).toEqual([TRACE_ID, "00f067aa0ba902b7"]);
    const children = received.filter((span) => span.parentSpanId === start.spanId);
    expect(children.length).toBeGreaterThan(0);
    for (const child of children) {
      expect(String(attribute(child, "db.query.text"))).not.toContain(apiKey);
    }
  }
});

test("a server span is an error for the server's faults (a 5xx, UNAVAILABLE), unset for the client's (404, NOT_FOUND, INVALID_ARGUMENT)", () => {
  const restUnavailable = spanWith("POST /v1/calls/start", "http.response.status_code", 503);
  expect(statusOf(restUnavailable)).toBe(ERROR);
  expect(attribute(restUnavailable, "error.type")).toBe("503");
  const grpcUnavailable = spanWith(GRPC_START, "rpc.grpc.status_code", status.UNAVAILABLE);
  expect(statusOf(grpcUnavailable)).toBe(ERROR);
  expect(attribute(grpcUnavailable, "error.type")).toBe("unavailable");

  const restNotFound = spanWith("GET /v1/customers/{customer_ref}", "http.response.status_code", 404);
  const grpcNotFound = spanWith(
    "callercontext.v1.CustomerService/GetCustomer",
    "rpc.grpc.status_code",
    status.NOT_FOUND,
  );
  const grpcInvalid = spanWith(GRPC_START, "rpc.grpc.status_code", status.INVALID_ARGUMENT);
  for (const span of [restNotFound, grpcNotFound, grpcInvalid]) {
    expect([span.kind, statusOf(span), attribute(span, "error.type")]).toEqual([SERVER, 0, undefined]);
  }
});

test("the resource is the SDK's: OTEL_RESOURCE_ATTRIBUTES percent-decoded, and OTEL_SERVICE_NAME before its service.name", () => {
  expect(resources.length).toBeGreaterThan(0);
  for (const resource of resources) {
    expect(resource).toMatchObject({
      "service.name": "caller-context-eu",
      "service.version": "1.2.3",
      "deployment.environment.name": "staging eu",
      "telemetry.sdk.name": "opentelemetry",
      "telemetry.sdk.language": "nodejs",
    });
  }
});
