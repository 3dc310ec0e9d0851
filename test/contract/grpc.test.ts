import type * as grpc from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  CallerContextService,
  IdentityLevel,
  IntentStatus,
  LineType,
  Recommendation,
} from "../../gen/callercontext/v1/caller_context_pb.ts";
import { ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { HealthService } from "../../gen/callercontext/v1/health_pb.ts";
import { callUnary, createGrpcClient, grpcErrorDetails } from "../helpers/grpc-client.ts";
import { createAccountWithKey, post } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let client: grpc.Client;
let key: string;
let auth: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  ({ apiKey: key } = await createAccountWithKey(server.url));
  auth = { authorization: `Bearer ${key}` };
  client = createGrpcClient(server.url);
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const { startCall, endCall } = CallerContextService.method;

describe("gRPC over h2c on the REST port", () => {
  test("health answers without credentials", async () => {
    const { response, error } = await callUnary(client, HealthService.method.check, {});
    expect(error).toBeUndefined();
    expect(response?.status).toBe("healthy");
    expect(response?.database).toBe("connected");
  });

  test("a new caller over gRPC gets the rule-4 response", async () => {
    const { response, error } = await callUnary(
      client,
      startCall,
      { callId: "g-1", identityHints: { ani: "+14155550111" } },
      auth,
    );
    expect(error).toBeUndefined();
    expect(response?.customerRef).toMatch(/^[0-9a-f-]{36}$/);
    expect(response?.identity).toMatchObject({
      confidence: 0,
      level: IdentityLevel.LOW,
      sources: [],
      recommendation: Recommendation.IGNORE,
    });
    expect(response?.openIntents).toEqual([]);
    expect(response?.variables).toEqual({});
  });

  test("REST and gRPC see the same customer's context", async () => {
    const started = await post(server.url, "/v1/calls/start", key, {
      call_id: "mix-1",
      identity_hints: { external_ids: { crm: "M-1" } },
    });
    await post(server.url, "/v1/calls/end", key, {
      call_id: "mix-1",
      customer_ref: started.body.customer_ref,
      intent: "refund",
      intent_status: "open",
      variables: { tier: "gold" },
    });
    const { response } = await callUnary(
      client,
      startCall,
      { callId: "mix-2", identityHints: { externalIds: { crm: "M-1" } }, telco: { lineType: LineType.MOBILE } },
      auth,
    );
    expect(response?.customerRef).toBe(started.body.customer_ref);
    expect(response?.openIntents.map((i) => [i.intent, i.status, i.attemptCount])).toEqual([
      ["refund", IntentStatus.OPEN, 1],
    ]);
    expect(response?.variables.tier?.value).toBe("gold");
    expect(response?.variables.tier?.source).toBeUndefined();

    const ended = await callUnary(client, endCall, { callId: "mix-2", customerRef: started.body.customer_ref }, auth);
    expect(ended.error).toBeUndefined();
    expect(ended.response?.durationSeconds).toBeGreaterThanOrEqual(0);
  });

  test("INVALID_ARGUMENT carries the same field violations as REST", async () => {
    const { error } = await callUnary(client, startCall, { identityHints: {} }, auth);
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    const [failure] = grpcErrorDetails(error, ValidationFailureSchema);
    expect(failure?.issues.map((issue) => issue.path)).toEqual([["call_id"], ["identity_hints"]]);
  });

  test("ALREADY_EXISTS for a duplicate call_id and NOT_FOUND for an unknown call", async () => {
    await callUnary(client, startCall, { callId: "g-dup", identityHints: { ani: "+14155550112" } }, auth);
    const dup = await callUnary(client, startCall, { callId: "g-dup", identityHints: { ani: "+14155550112" } }, auth);
    expect(dup.error?.code).toBe(status.ALREADY_EXISTS);
    const missing = await callUnary(client, endCall, { callId: "g-never", customerRef: "x" }, auth);
    expect(missing.error?.code).toBe(status.NOT_FOUND);
    expect(missing.error?.details).toContain("g-never");
  });

  test("UNAUTHENTICATED without a key", async () => {
    const { error } = await callUnary(client, startCall, { callId: "g-2", identityHints: { ani: "+1" } });
    expect(error?.code).toBe(status.UNAUTHENTICATED);
    expect(error?.details).toBe("Invalid or missing API key");
  });
});
