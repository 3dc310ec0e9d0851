import type * as grpc from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { HealthService } from "../../gen/callercontext/v1/health_pb.ts";
import { randomBase62 } from "../../src/domain/api-key.ts";
import { createKey, revokeKey } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, startBody, TRANSPORTS, uniqueCallId } from "../helpers/call-client.ts";
import { callUnary, createGrpcClient } from "../helpers/grpc-client.ts";
import { createAccountWithKey, post, request } from "../helpers/rest-client.ts";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../helpers/test-server.ts";

let server: TestServer;
let calls: CallClient;
let grpcClient: grpc.Client;

beforeAll(async () => {
  server = await startTestServer();
  calls = createCallClient(server.url);
  grpcClient = createGrpcClient(server.url);
});
afterAll(async () => {
  calls.close();
  grpcClient.close();
  await server.stop();
});

const INVALID = { error: "Unauthorized", message: "Invalid or missing API key" };
const REVOKED = { error: "Unauthorized", message: "API key has been revoked" };
const GUARD_HEADERS = ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-quota-remaining"];

/** Authorization headers that name no usable key; undefined sends none. */
const BAD_AUTHORIZATION: [string, string | undefined][] = [
  ["a missing Authorization header", undefined],
  ["a Basic header", "Basic x"],
  ["Bearer without a token", "Bearer"],
  ["an unknown but well-formed sk_test_ key", `Bearer sk_test_${randomBase62(40)}`],
  ["an unknown but well-formed sk_prod_ key", `Bearer sk_prod_${randomBase62(40)}`],
  ["a token that is not a key", "Bearer not-a-key"],
];

describe("401 Invalid or missing API key", () => {
  describe.each(BAD_AUTHORIZATION)("%s", (_name, authorization) => {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };

    test.each(["/v1/calls/start", "/v1/calls/end"])("REST %s answers 401 and reveals no account", async (path) => {
      const res = await request(server.url, "POST", path, { body: startBody(), headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(INVALID);
      for (const name of GUARD_HEADERS) expect(res.headers.has(name)).toBe(false);
    });

    test("gRPC StartCall answers UNAUTHENTICATED with the same message", async () => {
      const { error, metadata } = await callUnary(
        grpcClient,
        CallerContextService.method.startCall,
        { callId: uniqueCallId(), identityHints: { ani: "+14155550123" } },
        headers,
      );
      expect(error?.code).toBe(status.UNAUTHENTICATED);
      expect(error?.details).toBe(INVALID.message);
      for (const name of GUARD_HEADERS) expect(metadata[name]).toBeUndefined();
    });
  });
});

describe("401 API key has been revoked", () => {
  test.each(TRANSPORTS)("a revoked key is refused over %s, on start and end", async (via) => {
    const { accountId, apiKey, keyId } = await createAccountWithKey(server.url);
    const sibling = await createKey(server.url, accountId, "test");
    const callId = uniqueCallId();
    expect((await calls.start(via, apiKey, startBody(callId))).status).toBe(200);

    const revoked = await revokeKey(server.url, keyId);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ key_id: keyId, revoked: true });

    const start = await calls.start(via, apiKey, startBody());
    const end = await calls.end(via, apiKey, { call_id: callId, customer_ref: "x" });
    for (const refused of [start, end]) {
      expect(refused.status).toBe(401);
      if (via === "rest") expect(refused.body).toEqual(REVOKED);
      else expect(refused.grpcError?.details).toBe(REVOKED.message);
    }
    // Revocation is per key: another key of the same account still works.
    expect((await calls.start(via, sibling.apiKey, startBody())).status).toBe(200);
  });

  test("revoking an unknown key is 404, and revoking twice keeps the key revoked", async () => {
    const { keyId, apiKey } = await createAccountWithKey(server.url);
    expect((await revokeKey(server.url, "key_doesnotexist")).status).toBe(404);
    expect((await revokeKey(server.url, keyId)).status).toBe(200);
    expect((await revokeKey(server.url, keyId)).body).toEqual({ key_id: keyId, revoked: true });
    expect((await calls.start("rest", apiKey, startBody())).body).toEqual(REVOKED);
  });
});

describe("health needs no key", () => {
  test("GET /v1/health answers 200 without a key and without rate-limit or quota headers", async () => {
    const res = await request(server.url, "GET", "/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "healthy", database: "connected" });
    for (const name of GUARD_HEADERS) expect(res.headers.has(name)).toBe(false);
  });

  test("GET /v1/health ignores an invalid key rather than refusing it", async () => {
    const res = await request(server.url, "GET", "/v1/health", { headers: { authorization: "Basic x" } });
    expect(res.status).toBe(200);
  });

  test("gRPC Health.Check answers without credentials and without guard metadata", async () => {
    const { response, error, metadata } = await callUnary(grpcClient, HealthService.method.check, {});
    expect(error).toBeUndefined();
    expect(response?.status).toBe("healthy");
    for (const name of GUARD_HEADERS) expect(metadata[name]).toBeUndefined();
  });
});

describe("401 on the admin API without the admin token", () => {
  const ADMIN_401 = { error: "Unauthorized", message: expect.any(String) };

  test.each<[string, Record<string, string>]>([
    ["no token", {}],
    ["a wrong token", { authorization: "Bearer wrong-admin-token-0123456789" }],
    ["the admin token under Basic", { authorization: `Basic ${ADMIN_TOKEN}` }],
  ])("REST admin calls with %s answer 401", async (_name, headers) => {
    const create = await request(server.url, "POST", "/admin/v1/accounts", { body: { name: "x" }, headers });
    expect(create.status).toBe(401);
    expect(create.body).toEqual(ADMIN_401);
    const { accountId, keyId } = await createAccountWithKey(server.url);
    const get = await request(server.url, "GET", `/admin/v1/accounts/${accountId}`, { headers });
    expect(get.status).toBe(401);
    const revoke = await request(server.url, "POST", `/admin/v1/keys/${keyId}/revoke`, { body: {}, headers });
    expect(revoke.status).toBe(401);
  });

  test("an API key is not an admin token", async () => {
    const { accountId, apiKey } = await createAccountWithKey(server.url);
    const res = await post(server.url, `/admin/v1/accounts/${accountId}/quota`, apiKey, { quota_remaining: 1_000_000 });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(ADMIN_401);
  });

  test("a key stays usable after a refused revoke", async () => {
    const { apiKey, keyId } = await createAccountWithKey(server.url);
    await post(server.url, `/admin/v1/keys/${keyId}/revoke`, "wrong-admin-token-0123456789", {});
    expect((await calls.start("rest", apiKey, startBody())).status).toBe(200);
  });

  test.each<[string, Record<string, string>]>([
    ["no token", {}],
    ["a wrong token", { authorization: "Bearer wrong-admin-token-0123456789" }],
  ])("gRPC AdminService with %s answers UNAUTHENTICATED", async (_name, headers) => {
    const { error } = await callUnary(grpcClient, AdminService.method.createAccount, { name: "x" }, headers);
    expect(error?.code).toBe(status.UNAUTHENTICATED);
  });

  test("gRPC AdminService with the admin token is allowed", async () => {
    const { response, error } = await callUnary(
      grpcClient,
      AdminService.method.createAccount,
      { name: "via grpc" },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect(error).toBeUndefined();
    expect(response?.account?.accountId).toMatch(/^acct_/);
  });
});

describe("200: a key's kind and account choose whose callers are known", () => {
  const hints = (crm: string) => ({ ani: "+14155550177", external_ids: { crm_id: crm } });

  /** Makes the caller known to the key's tenant: a start and an end that saves a variable. */
  async function makeKnown(apiKey: string, crm: string): Promise<string> {
    const started = await calls.start("rest", apiKey, { call_id: uniqueCallId(), identity_hints: hints(crm) });
    expect(started.status).toBe(200);
    const ended = await calls.end("rest", apiKey, {
      call_id: started.body.call_id,
      customer_ref: started.body.customer_ref,
      variables: { plan: "gold" },
    });
    expect(ended.status).toBe(200);
    const again = await calls.start("rest", apiKey, { call_id: uniqueCallId(), identity_hints: hints(crm) });
    expect(again.body.customer_ref).toBe(started.body.customer_ref);
    expect(again.body.identity.confidence).toBeGreaterThan(0);
    expect(again.body.variables.plan.value).toBe("gold");
    return started.body.customer_ref;
  }

  test.each(TRANSPORTS)("a caller known through sk_test_ is a new caller through sk_prod_ (%s)", async (via) => {
    const { accountId, apiKey: testKey } = await createAccountWithKey(server.url, { kind: "test" });
    const { apiKey: prodKey } = await createKey(server.url, accountId, "prod");
    expect(testKey).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(prodKey).toMatch(/^sk_prod_[0-9A-Za-z]{40}$/);
    const crm = `C-${via}-mode`;
    const known = await makeKnown(testKey, crm);

    const res = await calls.start(via, prodKey, { call_id: uniqueCallId(), identity_hints: hints(crm) });
    expect(res.status).toBe(200);
    expectNewCaller(res.body, known);
  });

  test.each(TRANSPORTS)("a customer of account A is not matched for account B (%s)", async (via) => {
    const a = await createAccountWithKey(server.url);
    const b = await createAccountWithKey(server.url);
    const crm = `C-${via}-tenant`;
    const known = await makeKnown(a.apiKey, crm);

    const res = await calls.start(via, b.apiKey, { call_id: uniqueCallId(), identity_hints: hints(crm) });
    expect(res.status).toBe(200);
    expectNewCaller(res.body, known);
  });

  function expectNewCaller(body: any, knownRef: string) {
    expect(body.customer_ref).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.customer_ref).not.toBe(knownRef);
    expect(body.identity.confidence).toBe(0);
    expect(body.identity.sources).toEqual([]);
    expect(body.identity.level).toBe("low");
    expect(body.open_intents).toEqual([]);
    expect(body.variables).toEqual({});
  }
});
