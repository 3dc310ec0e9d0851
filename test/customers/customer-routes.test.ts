import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { createKey, quotaOf, setQuota } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, TRANSPORTS, type Transport } from "../helpers/call-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Every customer route and every status it has, over REST and gRPC: look up,
// list, erase, merge, unlink. Each test makes callers of its own.

let server: TestServer;
let rpc: RpcClient;
let calls: CallClient;
let accountId = "";
const keys = { own: "", otherKind: "", otherAccount: "" };

beforeAll(async () => {
  server = await startTestServer();
  rpc = createRpcClient(server.url);
  calls = createCallClient(server.url);
  const a = await createAccountWithKey(server.url, { kind: "test" });
  accountId = a.accountId;
  keys.own = a.apiKey;
  keys.otherKind = (await createKey(server.url, a.accountId, "prod")).apiKey;
  keys.otherAccount = (await createAccountWithKey(server.url, { kind: "test" })).apiKey;
});
afterAll(async () => {
  rpc?.close();
  calls?.close();
  await server?.stop();
});

const m = { ...CustomerService.method, ...CallerContextService.method } as unknown as Record<string, DescMethodUnary>;
let seq = 0;
const uniqueAni = () => `+1415666${String(++seq).padStart(4, "0")}`;

describe.each(TRANSPORTS)("customer records over %s", (via: Transport) => {
  /** A call with the own key, another key, or (null) none. */
  const call = (method: string, fields: object = {}, key: string | null = keys.own) =>
    rpc.call(via, m[method], key ?? undefined, fields);

  /** A caller with a number, an external id, an open intent and a variable, saved by one ended call. */
  async function knownCaller(marker = randomUUID().slice(0, 8)) {
    const ani = uniqueAni();
    const callId = `call-${randomUUID()}`;
    const started = await calls.start(via, keys.own, {
      call_id: callId,
      identity_hints: { ani, external_ids: { crm_id: `C-${marker}` } },
    });
    expect(started.status).toBe(200);
    const ref = started.body.customer_ref as string;
    const ended = await calls.end(via, keys.own, {
      call_id: callId,
      customer_ref: ref,
      intent_updates: [{ intent: `billing_${marker}`, status: "open" }],
      variable_updates: { plan: { value: `gold_${marker}` } },
    });
    expect(ended.status).toBe(200);
    return { ref, ani, crmId: `C-${marker}`, marker, callId };
  }

  describe("GET /v1/customers/{customer_ref}", () => {
    test("200 with identifiers, intents, variables and calls", async () => {
      const c = await knownCaller();
      const res = await call("getCustomer", { customer_ref: c.ref });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        customer_ref: c.ref,
        identifiers: { ani: [c.ani], external_ids: [{ key: "crm_id", value: c.crmId }] },
        open_intents: [{ intent: `billing_${c.marker}`, status: "open", attempt_count: 1 }],
        resolved_intents: [],
        variables: { plan: { value: `gold_${c.marker}`, source: null, ttl_seconds: 2592000 } },
        calls: [{ call_id: c.callId }],
      });
      expect(res.body.calls[0].duration_seconds).toBeGreaterThanOrEqual(0);
      expect(Date.parse(res.body.created_at)).toBeLessThanOrEqual(Date.parse(res.body.last_call_at));
    });

    test("404 for an unknown ref and for a value that is not a ref", async () => {
      expect((await call("getCustomer", { customer_ref: randomUUID() })).status).toBe(404);
      const res = await call("getCustomer", { customer_ref: "not-a-ref" });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe("Customer 'not-a-ref' not found");
    });

    test("401 without a key", async () => {
      expect((await call("getCustomer", { customer_ref: randomUUID() }, null)).status).toBe(401);
    });
  });

  describe("GET /v1/customers", () => {
    test("200 by number in any spelling, by external id, and an empty list for neither known", async () => {
      const c = await knownCaller();
      const byAni = await call("listCustomers", { ani: c.ani.slice(1) });
      expect(byAni.status).toBe(200);
      expect(byAni.body.customers).toEqual([{ customer_ref: c.ref, last_call_at: expect.any(String) }]);
      const byId = await call("listCustomers", { external_id: `crm_id:${c.crmId}` });
      expect(byId.body.customers.map((x: { customer_ref: string }) => x.customer_ref)).toEqual([c.ref]);
      const none = await call("listCustomers", { ani: uniqueAni() });
      expect(none).toMatchObject({ status: 200, body: { customers: [] } });
    });

    test("400 without an identifier, with both, or with an external id that is not key:value", async () => {
      const cases: object[] = [{}, { ani: "+14155550100", external_id: "a:b" }, { external_id: "nocolon" }];
      // Over REST an unknown query parameter is refused like an unknown body field.
      if (via === "rest") cases.push({ ani: "+14155550100", bogus: "1" });
      for (const fields of cases) {
        const res = await call("listCustomers", fields);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe("Validation failed");
      }
    });
  });

  describe("DELETE /v1/customers/{customer_ref}", () => {
    test("200 erases; a second erase is 404; the number is a new caller again", async () => {
      const c = await knownCaller();
      const res = await call("eraseCustomer", { customer_ref: c.ref });
      expect(res).toMatchObject({ status: 200, body: { customer_ref: c.ref, erased: true } });
      expect((await call("eraseCustomer", { customer_ref: c.ref })).status).toBe(404);
      expect((await call("getCustomer", { customer_ref: c.ref })).status).toBe(404);
      const again = await calls.start(via, keys.own, {
        call_id: `call-${randomUUID()}`,
        identity_hints: { ani: c.ani, external_ids: { crm_id: c.crmId } },
        telco: { line_type: "mobile" },
      });
      expect(again.body.identity.confidence).toBe(0);
      expect(again.body.customer_ref).not.toBe(c.ref);
      expect(again.body.open_intents).toEqual([]);
    });

    test("is not billed and works with no quota left, but is rate limited; it says how many credits are left", async () => {
      const c = await knownCaller();
      const before = await quotaOf(server.url, accountId);
      const unknown = await call("eraseCustomer", { customer_ref: randomUUID() });
      expect(unknown.status).toBe(404);
      expect(unknown.headers["x-quota-remaining"]).toBe(String(before));
      await setQuota(server.url, accountId, 0);
      try {
        expect((await call("getCustomer", { customer_ref: c.ref })).status).toBe(402);
        const res = await call("eraseCustomer", { customer_ref: c.ref });
        expect(res.status).toBe(200);
        expect(res.headers["x-ratelimit-limit"]).toBe("3000");
        expect(res.headers["x-quota-remaining"]).toBe("0");
        expect(await quotaOf(server.url, accountId)).toBe(0);
      } finally {
        await setQuota(server.url, accountId, before);
      }
    });
  });

  describe("POST /v1/customers/{customer_ref}/merge", () => {
    test("200 moves everything to the survivor; the merged ref resolves to it at start, at end and here", async () => {
      const survivor = await knownCaller();
      const merged = await knownCaller();
      const res = await call("mergeCustomers", { customer_ref: survivor.ref, from: merged.ref });
      expect(res.status).toBe(200);
      expect(res.body.customer_ref).toBe(survivor.ref);
      expect([...res.body.identifiers.ani].sort()).toEqual([survivor.ani, merged.ani].sort());
      expect(res.body.identifiers.external_ids).toHaveLength(2);
      expect(res.body.open_intents).toHaveLength(2);
      expect(res.body.calls.map((x: { call_id: string }) => x.call_id).sort()).toEqual(
        [survivor.callId, merged.callId].sort(),
      );

      const viaAlias = await call("getCustomer", { customer_ref: merged.ref });
      expect(viaAlias.body.customer_ref).toBe(survivor.ref);
      const callId = `call-${randomUUID()}`;
      const start = await calls.start(via, keys.own, { call_id: callId, identity_hints: { customer_ref: merged.ref } });
      expect(start.body).toMatchObject({ customer_ref: survivor.ref, identity: { confidence: 1 } });
      const end = await calls.end(via, keys.own, { call_id: callId, customer_ref: merged.ref, intent: "after_merge" });
      expect(end).toMatchObject({ status: 200, body: { customer_ref: survivor.ref } });
    });

    test("intents of one name combine: attempts add up, and an open one wins over an older resolved one", async () => {
      const a = await knownCaller();
      const b = await knownCaller();
      for (const [ref, status] of [
        [a.ref, "resolved"],
        [b.ref, "open"],
        [b.ref, "open"],
      ] as const) {
        const callId = `call-${randomUUID()}`;
        await calls.start(via, keys.own, { call_id: callId, identity_hints: { customer_ref: ref } });
        const end = await calls.end(via, keys.own, {
          call_id: callId,
          customer_ref: ref,
          intent_updates: [{ intent: "shared", status }],
        });
        expect(end.status).toBe(200);
      }
      const res = await call("mergeCustomers", { customer_ref: a.ref, from: b.ref });
      const shared = res.body.open_intents.find((x: { intent: string }) => x.intent === "shared");
      expect(shared).toEqual({ intent: "shared", status: "open", attempt_count: 2 });
      expect(res.body.resolved_intents).toEqual([]);
    });

    test("400 for a customer merged into itself (also through its alias) or without from", async () => {
      const a = await knownCaller();
      const b = await knownCaller();
      expect((await call("mergeCustomers", { customer_ref: a.ref, from: a.ref })).status).toBe(400);
      expect((await call("mergeCustomers", { customer_ref: a.ref, from: b.ref })).status).toBe(200);
      expect((await call("mergeCustomers", { customer_ref: b.ref, from: a.ref })).status).toBe(400);
      expect((await call("mergeCustomers", { customer_ref: a.ref })).status).toBe(400);
    });

    test("404 when either customer is unknown", async () => {
      const a = await knownCaller();
      expect((await call("mergeCustomers", { customer_ref: a.ref, from: randomUUID() })).status).toBe(404);
      expect((await call("mergeCustomers", { customer_ref: randomUUID(), from: a.ref })).status).toBe(404);
      expect((await call("getCustomer", { customer_ref: a.ref })).body.customer_ref).toBe(a.ref);
    });
  });

  describe("DELETE /v1/customers/{customer_ref}/identifiers", () => {
    test("200 without the identifier; the next start with that number is a new caller", async () => {
      const c = await knownCaller();
      const res = await call("unlinkIdentifier", { customer_ref: c.ref, ani: c.ani });
      expect(res.status).toBe(200);
      expect(res.body.identifiers).toEqual({ ani: [], external_ids: [{ key: "crm_id", value: c.crmId }] });
      const next = await calls.start(via, keys.own, {
        call_id: `call-${randomUUID()}`,
        identity_hints: { ani: c.ani },
      });
      expect(next.body.customer_ref).not.toBe(c.ref);
      const byId = await call("unlinkIdentifier", { customer_ref: c.ref, external_id: `crm_id:${c.crmId}` });
      expect(byId.body.identifiers.external_ids).toEqual([]);
    });

    test("404 when the customer does not hold the identifier; 400 without one", async () => {
      const c = await knownCaller();
      expect((await call("unlinkIdentifier", { customer_ref: c.ref, ani: uniqueAni() })).status).toBe(404);
      expect((await call("unlinkIdentifier", { customer_ref: randomUUID(), ani: c.ani })).status).toBe(404);
      expect((await call("unlinkIdentifier", { customer_ref: c.ref })).status).toBe(400);
    });
  });

  describe("tenant isolation", () => {
    test("another account's or the other key kind's ref is 404 on every route, and nothing changes", async () => {
      const c = await knownCaller();
      const own = await knownCaller();
      const before = await call("getCustomer", { customer_ref: c.ref });
      for (const key of [keys.otherKind, keys.otherAccount]) {
        expect((await call("getCustomer", { customer_ref: c.ref }, key)).status).toBe(404);
        expect((await call("listCustomers", { ani: c.ani }, key)).body.customers).toEqual([]);
        expect((await call("eraseCustomer", { customer_ref: c.ref }, key)).status).toBe(404);
        expect((await call("mergeCustomers", { customer_ref: c.ref, from: own.ref }, key)).status).toBe(404);
        expect((await call("unlinkIdentifier", { customer_ref: c.ref, ani: c.ani }, key)).status).toBe(404);
      }
      // Merging another tenant's customer into one's own is refused the same way.
      expect((await call("mergeCustomers", { customer_ref: own.ref, from: c.ref }, keys.otherKind)).status).toBe(404);
      const after = await call("getCustomer", { customer_ref: c.ref });
      expect(after.body).toEqual(before.body);
    });
  });
});
