import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { createKey, quotaOf } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, TRANSPORTS, type Transport } from "../helpers/call-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// POST /v1/calls/identify and GET /v1/usage over REST and gRPC.

let server: TestServer;
let rpc: RpcClient;
let calls: CallClient;
let accountId = "";
let keyId = "";
const keys = { own: "", otherKind: "", otherAccount: "" };

beforeAll(async () => {
  server = await startTestServer();
  rpc = createRpcClient(server.url);
  calls = createCallClient(server.url);
  const a = await createAccountWithKey(server.url, { kind: "test", tier: "starter" });
  ({ accountId, keyId } = a);
  keys.own = a.apiKey;
  keys.otherKind = (await createKey(server.url, a.accountId, "prod")).apiKey;
  keys.otherAccount = (await createAccountWithKey(server.url, { kind: "test" })).apiKey;
});
afterAll(async () => {
  rpc?.close();
  calls?.close();
  await server?.stop();
});

const { identifyCall, getUsage } = CallerContextService.method as unknown as Record<string, DescMethodUnary>;
const { getCustomer } = CustomerService.method as unknown as Record<string, DescMethodUnary>;
let seq = 0;
const uniqueAni = () => `+1415777${String(++seq).padStart(4, "0")}`;

describe.each(TRANSPORTS)("identify over %s", (via: Transport) => {
  const identify = (fields: object, key = keys.own) => rpc.call(via, identifyCall, key, fields);
  const start = async (hints: object, key = keys.own) => {
    const callId = `call-${randomUUID()}`;
    const res = await calls.start(via, key, { call_id: callId, identity_hints: hints });
    expect(res.status).toBe(200);
    return { callId, ref: res.body.customer_ref as string };
  };
  /** A customer known by an account number, with an open intent and a variable. */
  async function knownByAccount(key = keys.own) {
    const account = `A-${randomUUID().slice(0, 8)}`;
    const first = await start({ external_ids: { account } }, key);
    await calls.end(via, key, {
      call_id: first.callId,
      customer_ref: first.ref,
      intent: "refund",
      variables: { tier: "gold" },
    });
    return { account, ref: first.ref };
  }

  test("200: the new hints find the customer, the call moves to them, and the end saves there", async () => {
    const known = await knownByAccount();
    const call = await start({ ani: uniqueAni() });
    const before = await quotaOf(server.url, accountId);
    const res = await identify({ call_id: call.callId, identity_hints: { external_ids: { account: known.account } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      call_id: call.callId,
      customer_ref: known.ref,
      identity: { sources: expect.arrayContaining(["external_id"]) },
      open_intents: [{ intent: "refund", status: "open", attempt_count: 1 }],
      variables: { tier: { value: "gold" } },
    });
    expect(Number(res.headers["x-quota-remaining"])).toBe(before - 1);
    const end = await calls.end(via, keys.own, { call_id: call.callId, identity_hints: {}, intent: "moved" });
    expect(end).toMatchObject({ status: 200, body: { customer_ref: known.ref } });
  });

  test("verified: confidence 1, source verified, reuse; the call's number is linked to the customer", async () => {
    const known = await knownByAccount();
    const ani = uniqueAni();
    const call = await start({ ani });
    const res = await identify({
      call_id: call.callId,
      identity_hints: { external_ids: { account: known.account } },
      verified: true,
    });
    expect(res.body.identity).toMatchObject({ confidence: 1, level: "very_high", recommendation: "reuse" });
    expect(res.body.identity.sources[0]).toBe("verified");
    const next = await start({ ani });
    expect(next.ref).toBe(known.ref);
  });

  test("verified: the stranger's record the start made, left empty, becomes the customer's alias", async () => {
    const known = await knownByAccount();
    const call = await start({ ani: uniqueAni() });
    expect(call.ref).not.toBe(known.ref);
    const res = await identify({
      call_id: call.callId,
      identity_hints: { external_ids: { account: known.account } },
      verified: true,
    });
    expect(res.body.customer_ref).toBe(known.ref);
    // No record with no identifier and no call is left: the start's ref reads the customer it turned out to be,
    // with this call among its calls.
    const record = await rpc.call(via, getCustomer, keys.own, { customer_ref: call.ref });
    expect(record.status).toBe(200);
    expect(record.body.customer_ref).toBe(known.ref);
    expect(record.body.calls.map((c: { call_id: string }) => c.call_id)).toContain(call.callId);
    // And the end may still name it.
    const ended = await calls.end(via, keys.own, { call_id: call.callId, customer_ref: call.ref, intent: "refund" });
    expect(ended.status).toBe(200);
  });

  test("not verified: the start's record keeps the caller's number, so it is not empty and stays", async () => {
    const known = await knownByAccount();
    const ani = uniqueAni();
    const call = await start({ ani });
    await identify({ call_id: call.callId, identity_hints: { external_ids: { account: known.account } } });
    const record = await rpc.call(via, getCustomer, keys.own, { customer_ref: call.ref });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ customer_ref: call.ref, identifiers: { ani: [ani] }, calls: [] });
  });

  test("hints that match nobody leave the call with its customer, as a new caller", async () => {
    const call = await start({ ani: uniqueAni() });
    const res = await identify({ call_id: call.callId, identity_hints: { external_ids: { account: "nobody" } } });
    expect(res.body).toMatchObject({ customer_ref: call.ref, identity: { confidence: 0, recommendation: "ignore" } });
  });

  test("404 for a call never started, 409 for an ended call, 400 without hints", async () => {
    const hints = { ani: uniqueAni() };
    expect((await identify({ call_id: "never-started", identity_hints: hints })).status).toBe(404);
    const call = await start(hints);
    await calls.end(via, keys.own, { call_id: call.callId, customer_ref: call.ref });
    const ended = await identify({ call_id: call.callId, identity_hints: hints });
    expect(ended.status).toBe(409);
    expect(ended.body.message).toBe(`Call '${call.callId}' has already ended`);
    expect((await identify({ call_id: call.callId })).status).toBe(400);
  });

  test("another account's or the other key kind's call is 404 and stays as it was", async () => {
    const known = await knownByAccount();
    const call = await start({ ani: uniqueAni() });
    for (const key of [keys.otherKind, keys.otherAccount]) {
      const res = await identify({ call_id: call.callId, identity_hints: { customer_ref: known.ref } }, key);
      expect(res.status).toBe(404);
    }
    const end = await calls.end(via, keys.own, { call_id: call.callId, identity_hints: {} });
    expect(end.body.customer_ref).toBe(call.ref);
  });
});

describe.each(TRANSPORTS)("usage over %s", (via: Transport) => {
  const usage = (key: string | undefined = keys.own) => rpc.call(via, getUsage, key, {});

  test("200 with tier, window, quota and key; neither billed nor counted against the rate limit", async () => {
    const first = await usage();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      tier: "starter",
      rate_limit: { limit: 600 },
      key: { id: keyId, kind: "test" },
    });
    expect(first.body.quota.remaining).toBe(await quotaOf(server.url, accountId));
    expect(new Date(first.body.quota.renews_at).getUTCDate()).toBe(1);
    const second = await usage();
    expect(second.body.rate_limit.remaining).toBe(first.body.rate_limit.remaining);
    expect(second.body.quota.remaining).toBe(first.body.quota.remaining);
    await calls.start(via, keys.own, { call_id: `call-${randomUUID()}`, identity_hints: { ani: uniqueAni() } });
    const third = await usage();
    expect(third.body.rate_limit.remaining).toBe(first.body.rate_limit.remaining - 1);
    expect(third.body.quota.remaining).toBe(first.body.quota.remaining - 1);
  });

  test("401 without a key", async () => {
    expect((await usage("sk_test_nope")).status).toBe(401);
  });
});
