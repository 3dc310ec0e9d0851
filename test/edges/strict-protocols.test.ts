import http2 from "node:http2";
import net from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  CallerContextService,
  EndCallRequestSchema,
  IntentStatus,
  LineType,
  StartCallRequestSchema,
} from "../../gen/callercontext/v1/caller_context_pb.ts";
import { ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { startBody, uniqueCallId } from "../helpers/call-client.ts";
import { callUnary, createGrpcClient, grpcErrorDetails } from "../helpers/grpc-client.ts";
import { callWithBytes } from "../helpers/raw-grpc.ts";
import { post } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The same line on every protocol: enum numbers outside their declared set
// are INVALID_ARGUMENT with the field's violation (binary protobuf would
// keep them), an unknown gRPC method is UNIMPLEMENTED in gRPC's own terms,
// a method the host does not serve gets the error shape, and the access log
// tells a refused gRPC call by its code.

const fixture = useTestServer();
let grpcClient: grpc.Client;
beforeAll(() => {
  grpcClient = createGrpcClient(fixture.server.url);
});
afterAll(() => grpcClient.close());

const auth = () => ({ authorization: `Bearer ${fixture.apiKey}` });
const connectClient = () =>
  createClient(CallerContextService, createConnectTransport({ baseUrl: fixture.server.url, httpVersion: "1.1" }));

/** A started call and its customer, to end. */
async function startedCall() {
  const callId = uniqueCallId("strict");
  const res = await post(fixture.server.url, "/v1/calls/start", fixture.apiKey, startBody(callId));
  expect(res.status).toBe(200);
  return { callId, customerRef: res.body.customer_ref as string };
}

const OUT_OF_SET = 99 as never;

const ENUM_CASES = [
  {
    field: "telco.line_type",
    path: ["telco", "line_type"],
    start: () => ({
      callId: uniqueCallId("strict"),
      identityHints: { ani: "+14155550177" },
      telco: { lineType: OUT_OF_SET },
    }),
  },
  {
    field: "intent_status",
    path: ["intent_status"],
    end: (call: { callId: string; customerRef: string }) => ({ ...call, intent: "billing", intentStatus: OUT_OF_SET }),
  },
  {
    field: "intent_updates[].status",
    path: ["intent_updates", "0", "status"],
    end: (call: { callId: string; customerRef: string }) => ({
      ...call,
      intentUpdates: [{ intent: "billing", status: OUT_OF_SET }],
    }),
  },
  {
    field: "intent_updates[].status UNSPECIFIED (required)",
    path: ["intent_updates", "0", "status"],
    end: (call: { callId: string; customerRef: string }) => ({
      ...call,
      intentUpdates: [{ intent: "billing", status: IntentStatus.UNSPECIFIED }],
    }),
  },
];

describe("enum numbers outside the declared set are INVALID_ARGUMENT, and nothing is saved", () => {
  test.each(ENUM_CASES)("gRPC: $field", async (c) => {
    if (c.start) {
      const input = c.start();
      const refused = await callUnary(grpcClient, CallerContextService.method.startCall, input, auth());
      expect(refused.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(grpcErrorDetails(refused.error, ValidationFailureSchema)[0].issues.map((i) => i.path)).toEqual([c.path]);
      // The call_id was not taken.
      const again = await callUnary(
        grpcClient,
        CallerContextService.method.startCall,
        { ...input, telco: { lineType: LineType.MOBILE } },
        auth(),
      );
      expect(again.error).toBeUndefined();
      return;
    }
    const call = await startedCall();
    const refused = await callUnary(grpcClient, CallerContextService.method.endCall, c.end(call), auth());
    expect(refused.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(grpcErrorDetails(refused.error, ValidationFailureSchema)[0].issues.map((i) => i.path)).toEqual([c.path]);
    // The call is still open: a valid end closes it.
    const ended = await callUnary(grpcClient, CallerContextService.method.endCall, call, auth());
    expect(ended.error).toBeUndefined();
  });

  test.each(ENUM_CASES)("Connect: $field", async (c) => {
    const client = connectClient();
    const refused = c.start
      ? await client.startCall(create(StartCallRequestSchema, c.start()), { headers: auth() }).catch((e) => e)
      : await client
          .endCall(create(EndCallRequestSchema, c.end(await startedCall())), { headers: auth() })
          .catch((e) => e);
    const error = ConnectError.from(refused);
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.findDetails(ValidationFailureSchema)[0].issues.map((i) => i.path)).toEqual([c.path]);
  });

  test("REST: the same fields with a number or an unknown name are 400 at the same path", async () => {
    const call = await startedCall();
    for (const [body, path] of [
      [{ ...startBody(), telco: { line_type: 99 } }, ["telco", "line_type"]],
      [
        { call_id: call.callId, customer_ref: call.customerRef, intent: "x", intent_status: "closed" },
        ["intent_status"],
      ],
    ] as const) {
      const res = await post(
        fixture.server.url,
        "intent" in body ? "/v1/calls/end" : "/v1/calls/start",
        fixture.apiKey,
        body,
      );
      expect(res.status).toBe(400);
      expect(res.body.details.issues.map((i: { path: string[] }) => i.path)).toEqual([path]);
    }
  });
});

describe("requests no route takes", () => {
  test.each(["/callercontext.v1.CallerContextService/NoSuchMethod", "/nosuch.v1.NoSuchService/Call"])(
    "a grpc-js client calling %s gets UNIMPLEMENTED",
    async (path) => {
      const answer = await callWithBytes(grpcClient, path, Buffer.alloc(0), auth(), 5000);
      expect(answer).toEqual({ code: grpc.status.UNIMPLEMENTED, details: expect.any(String) });
    },
  );

  test("the UNIMPLEMENTED answer is gRPC on the wire: gRPC content type, status in the trailers", async () => {
    const session = http2.connect(fixture.server.url);
    try {
      const answer = await new Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders }>(
        (resolve, reject) => {
          const stream = session.request({
            ":method": "POST",
            ":path": "/callercontext.v1.CallerContextService/NoSuchMethod",
            "content-type": "application/grpc",
            te: "trailers",
          });
          let headers: http2.IncomingHttpHeaders = {};
          stream.on("response", (received) => {
            headers = received;
          });
          stream.on("trailers", (trailers) => resolve({ headers, trailers }));
          stream.on("error", reject);
          stream.end(Buffer.from([0, 0, 0, 0, 0]));
          stream.resume();
        },
      );
      expect(answer.headers[":status"]).toBe(200);
      expect(answer.headers["content-type"]).toBe("application/grpc");
      expect(answer.trailers["grpc-status"]).toBe(String(grpc.status.UNIMPLEMENTED));
    } finally {
      session.close();
    }
  });

  test.each(["CONNECT example.com:443", "TRACE /v1/health", "PUT /v1/calls/start"])(
    "%s gets a 405 in the error shape, not a dropped connection",
    async (requestLine) => {
      const port = Number(new URL(fixture.server.url).port);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, "127.0.0.1", () =>
          socket.write(
            `${requestLine} HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
          ),
        );
        let received = "";
        socket.on("data", (chunk) => {
          received += chunk;
        });
        socket.on("close", () => resolve(received));
        socket.on("error", reject);
      });
      const [head, body] = raw.split("\r\n\r\n");
      expect(head.split("\r\n")[0]).toBe("HTTP/1.1 405 Method Not Allowed");
      expect(head.toLowerCase()).toContain("content-type: application/json");
      expect(JSON.parse(body)).toEqual({
        error: "Method Not Allowed",
        message: expect.stringContaining(requestLine.split(" ")[0]),
      });
    },
  );
});

describe("the access log: one line per request, with its protocol, RPC, status and code", () => {
  const linesOf = (requestId: string) =>
    fixture.server.logLines
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === "request" && entry.reqId === requestId);

  /** Log lines are written when the response closes, a moment after the client has its answer. */
  async function lineOf(requestId: string) {
    for (let i = 0; i < 50 && linesOf(requestId).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const lines = linesOf(requestId);
    expect(lines).toHaveLength(1);
    return lines[0];
  }

  test("a gRPC call refused for its key is logged with code unauthenticated (HTTP 200), with no secret", async () => {
    const badKey = "sk_test_nosuchkeynosuchkeynosuchkey00";
    const refused = await callUnary(
      grpcClient,
      CallerContextService.method.startCall,
      { callId: "x" },
      {
        authorization: `Bearer ${badKey}`,
        "x-request-id": "refused-grpc-1",
      },
    );
    expect(refused.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    const line = await lineOf("refused-grpc-1");
    expect(line).toMatchObject({
      protocol: "grpc",
      rpc: "callercontext.v1.CallerContextService/StartCall",
      status: 200,
      code: "unauthenticated",
    });
    expect(JSON.stringify(line)).not.toContain(badKey.slice(8));
  });

  test("a compressed gRPC call (Connect's own handler) refused for its body is logged with its code", async () => {
    const client = new grpc.Client(new URL(fixture.server.url).host, grpc.credentials.createInsecure(), {
      "grpc.default_compression_algorithm": 2,
    });
    try {
      const refused = await callUnary(
        client,
        CallerContextService.method.startCall,
        { callId: "" },
        {
          ...auth(),
          "x-request-id": "refused-grpc-2",
        },
      );
      expect(refused.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    } finally {
      client.close();
    }
    expect(await lineOf("refused-grpc-2")).toMatchObject({ protocol: "grpc", status: 200, code: "invalid_argument" });
  });

  test("Connect and REST lines carry the HTTP status, the code and the key id of an authenticated call", async () => {
    const error = await connectClient()
      .startCall({ callId: "x" }, { headers: { "x-request-id": "refused-connect-1" } })
      .catch((e) => e);
    expect(ConnectError.from(error).code).toBe(Code.Unauthenticated);
    expect(await lineOf("refused-connect-1")).toMatchObject({
      protocol: "connect",
      status: 401,
      code: "unauthenticated",
    });

    const res = await post(fixture.server.url, "/v1/calls/start", fixture.apiKey, startBody(), {
      "x-request-id": "rest-ok-1",
    });
    expect(res.status).toBe(200);
    expect(await lineOf("rest-ok-1")).toMatchObject({
      protocol: "rest",
      route: "/v1/calls/start",
      rpc: "callercontext.v1.CallerContextService/StartCall",
      status: 200,
      code: "ok",
      keyId: expect.stringMatching(/^key_/),
    });
  });
});
