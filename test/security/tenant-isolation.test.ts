import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createKey } from "../helpers/admin-client.ts";
import { type CallClient, createCallClient, forKey, type KeyedCallClient, TRANSPORTS } from "../helpers/call-client.ts";
import { createAccountWithKey } from "../helpers/rest-client.ts";
import { startTestServer, type TestServer } from "../helpers/test-server.ts";

// Whose data a request may see: one account, in one key kind. Accounts A and
// B, and A's test and prod keys, use the same identifiers, customer_refs,
// call_ids and idempotency keys; each sees and changes only its own.

let server: TestServer;
let calls: CallClient;
const keys = { aTest: "", aProd: "", bTest: "" };

beforeAll(async () => {
  server = await startTestServer();
  calls = createCallClient(server.url);
  const a = await createAccountWithKey(server.url, { kind: "test" });
  keys.aTest = a.apiKey;
  keys.aProd = (await createKey(server.url, a.accountId, "prod")).apiKey;
  keys.bTest = (await createAccountWithKey(server.url, { kind: "test" })).apiKey;
});
afterAll(async () => {
  calls?.close();
  await server?.stop();
});

const NEW_CALLER = { confidence: 0, level: "low", sources: [], recommendation: "ignore" };

describe.each(TRANSPORTS)("tenant isolation over %s", (via) => {
  const as = (tenant: keyof typeof keys): KeyedCallClient => forKey(calls, via, keys[tenant]);
  let n = 0;
  const next = (label: string) => `${via}-${label}-${++n}`;
  // Numbers of their own per transport, so the two runs share no caller.
  const ani = (i: number) => `+1415555${via === "rest" ? 1 : 2}${String(i).padStart(3, "0")}`;

  /** A caller known to `tenant`, with an open intent and a variable saved by an ended call. */
  async function knownCaller(tenant: keyof typeof keys, hints: Record<string, unknown>, marker: string) {
    const callId = next("call");
    const first = await as(tenant).start({ call_id: callId, identity_hints: hints });
    expect(first.status).toBe(200);
    const ended = await as(tenant).end({
      call_id: callId,
      customer_ref: first.body.customer_ref,
      intent: `intent_${marker}`,
      intent_status: "open",
      variables: { owner: marker },
    });
    expect(ended.status).toBe(200);
    return first.body.customer_ref as string;
  }

  /** What `tenant` is told about the caller now: a start matched by the given hints. */
  async function contextSeenBy(tenant: keyof typeof keys, hints: Record<string, unknown>) {
    const res = await as(tenant).start({
      call_id: next("look"),
      identity_hints: hints,
      telco: { line_type: "mobile" },
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  test("B's start with A's customer_ref is a new caller: confidence 0, another ref, none of A's context", async () => {
    const refA = await knownCaller("aTest", { external_ids: { crm: next("crm") } }, "A");
    const res = await as("bTest").start({ call_id: next("call"), identity_hints: { customer_ref: refA } });
    expect(res.status).toBe(200);
    expect(res.body.customer_ref).not.toBe(refA);
    expect(res.body.identity).toEqual(NEW_CALLER);
    expect(res.body.open_intents).toEqual([]);
    expect(res.body.variables).toEqual({});
    // A still finds its caller by the same ref, context intact.
    const seenByA = await contextSeenBy("aTest", { customer_ref: refA });
    expect(seenByA.customer_ref).toBe(refA);
    expect(seenByA.variables.owner.value).toBe("A");
  });

  test("B's end with A's customer_ref is a 404 naming it, and A's context is unchanged", async () => {
    const hintsA = { external_ids: { crm: next("crm") } };
    const refA = await knownCaller("aTest", hintsA, "A");
    const callB = next("call");
    expect((await as("bTest").start({ call_id: callB, identity_hints: { ani: ani(170) } })).status).toBe(200);
    const res = await as("bTest").end({
      call_id: callB,
      customer_ref: refA,
      intent: "intent_B",
      intent_status: "open",
      variables: { owner: "B", injected: "yes" },
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain(refA);
    const seenByA = await contextSeenBy("aTest", hintsA);
    expect(seenByA.customer_ref).toBe(refA);
    expect(seenByA.open_intents).toEqual([{ intent: "intent_A", status: "open", attempt_count: 1 }]);
    expect(seenByA.variables).toEqual({ owner: { value: "A", source: null, ttl_seconds: 2592000 } });
    // B's call was not ended by the refused request: it can still be ended with its own caller.
    const own = await as("bTest").end({ call_id: callB, identity_hints: { ani: ani(170) } });
    expect(own.status).toBe(200);
  });

  test("the same ANI and external id in A and B are two customers, each seeing only its own variables", async () => {
    const hints = { ani: ani(171), external_ids: { account_number: next("acct") } };
    const refA = await knownCaller("aTest", hints, "A");
    const refB = await knownCaller("bTest", hints, "B");
    expect(refB).not.toBe(refA);
    const seenByA = await contextSeenBy("aTest", hints);
    const seenByB = await contextSeenBy("bTest", hints);
    expect(seenByA.customer_ref).toBe(refA);
    expect(seenByB.customer_ref).toBe(refB);
    expect(seenByA.variables).toEqual({ owner: { value: "A", source: null, ttl_seconds: 2592000 } });
    expect(seenByB.variables).toEqual({ owner: { value: "B", source: null, ttl_seconds: 2592000 } });
    expect(seenByA.open_intents.map((i: { intent: string }) => i.intent)).toEqual(["intent_A"]);
    expect(seenByB.open_intents.map((i: { intent: string }) => i.intent)).toEqual(["intent_B"]);
  });

  test("a call_id is unique per account: A and B both start it, and B's end does not end A's call", async () => {
    const callId = next("shared-call");
    const startA = await as("aTest").start({ call_id: callId, identity_hints: { ani: ani(172) } });
    const startB = await as("bTest").start({ call_id: callId, identity_hints: { ani: ani(172) } });
    expect([startA.status, startB.status]).toEqual([200, 200]);
    expect(startB.body.customer_ref).not.toBe(startA.body.customer_ref);
    const endB = await as("bTest").end({ call_id: callId, customer_ref: startB.body.customer_ref });
    expect(endB.status).toBe(200);
    const endA = await as("aTest").end({ call_id: callId, customer_ref: startA.body.customer_ref });
    expect(endA.status).toBe(200);
    expect(endA.body.customer_ref).toBe(startA.body.customer_ref);
    // Each account's call is ended once, in its own account.
    expect((await as("aTest").end({ call_id: callId, customer_ref: startA.body.customer_ref })).status).toBe(409);
    expect((await as("bTest").start({ call_id: callId, identity_hints: { ani: "+1" } })).status).toBe(409);
  });

  test("A's test and prod keys are separate: a caller known through sk_test_ is a new caller through sk_prod_", async () => {
    const hints = { ani: ani(173), external_ids: { crm: next("crm") } };
    const refTest = await knownCaller("aTest", hints, "test");
    const byHints = await as("aProd").start({ call_id: next("call"), identity_hints: hints });
    expect(byHints.status).toBe(200);
    expect(byHints.body.customer_ref).not.toBe(refTest);
    expect(byHints.body.identity).toEqual(NEW_CALLER);
    expect(byHints.body.variables).toEqual({});
    expect(byHints.body.open_intents).toEqual([]);
    const byRef = await as("aProd").start({ call_id: next("call"), identity_hints: { customer_ref: refTest } });
    expect(byRef.body.customer_ref).not.toBe(refTest);
    expect(byRef.body.identity).toEqual(NEW_CALLER);
    const endWithTestRef = await as("aProd").end({ call_id: byRef.body.call_id, customer_ref: refTest });
    expect(endWithTestRef.status).toBe(404);
    expect(endWithTestRef.body.message).toContain(refTest);
    const seenByTest = await contextSeenBy("aTest", hints);
    expect(seenByTest.customer_ref).toBe(refTest);
    expect(seenByTest.variables).toEqual({ owner: { value: "test", source: null, ttl_seconds: 2592000 } });
  });

  test("a call_id is unique per account and key kind: A's test and prod keys both start it and end their own", async () => {
    const callId = next("kind-call");
    const startTest = await as("aTest").start({ call_id: callId, identity_hints: { ani: ani(174) } });
    const startProd = await as("aProd").start({ call_id: callId, identity_hints: { ani: ani(174) } });
    expect([startTest.status, startProd.status]).toEqual([200, 200]);
    expect(startProd.body.customer_ref).not.toBe(startTest.body.customer_ref);
    expect((await as("aProd").end({ call_id: callId, customer_ref: startProd.body.customer_ref })).status).toBe(200);
    expect((await as("aTest").end({ call_id: callId, customer_ref: startTest.body.customer_ref })).status).toBe(200);
  });

  test("the same Idempotency-Key with the same body in A, B and A's prod key gives each its own response", async () => {
    // Identical requests: were the key global, the second and third would replay the first.
    const callId = next("idem-call");
    const body = { call_id: callId, identity_hints: { ani: ani(175) } };
    const idempotencyKey = { "Idempotency-Key": next("idem") };
    const refs = [];
    for (const tenant of ["aTest", "bTest", "aProd"] as const) {
      const started = await as(tenant).start(body);
      expect(started.status).toBe(200);
      const first = await as(tenant).end(body, idempotencyKey);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ call_id: callId, customer_ref: started.body.customer_ref });
      // Within its own account and kind the key replays its own response.
      const replay = await as(tenant).end(body, idempotencyKey);
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual(first.body);
      refs.push(first.body.customer_ref);
    }
    expect(new Set(refs).size).toBe(3);
  });
});
