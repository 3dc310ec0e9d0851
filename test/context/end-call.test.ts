import { describe, expect, test } from "vitest";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

const fixture = useTestServer();

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(TRANSPORTS)("end over %s", (protocol) => {
  const calls = fixture.over(protocol);
  let n = 0;
  const id = (label: string) => `${protocol}-${label}-${++n}`;

  async function started(hints: Record<string, unknown> = { ani: `+1415555${String(1000 + n).slice(-4)}` }) {
    const callId = id("call");
    const res = await calls.start({ call_id: callId, identity_hints: hints });
    expect(res.status).toBe(200);
    return { callId, customerRef: res.body.customer_ref as string };
  }

  test("200 sets call_end and duration_seconds and echoes the call", async () => {
    const { callId, customerRef } = await started();
    const res = await calls.end({ call_id: callId, customer_ref: customerRef });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      call_id: callId,
      customer_ref: customerRef,
      call_start: expect.stringMatching(ISO_MS),
      call_end: expect.stringMatching(ISO_MS),
      duration_seconds: expect.any(Number),
      intents_updated: 0,
      variables_updated: 0,
    });
    const expected = (Date.parse(res.body.call_end) - Date.parse(res.body.call_start)) / 1000;
    expect(res.body.duration_seconds).toBe(expected);
  });

  test("the simple form saves an intent and variables with source null and the default ttl", async () => {
    const hints = { external_ids: { crm_id: id("crm") } };
    const { callId, customerRef } = await started(hints);
    const res = await calls.end({
      call_id: callId,
      customer_ref: customerRef,
      intent: "billing_question",
      intent_status: "open",
      variables: { preferred_name: "Ann", plan: "gold" },
    });
    expect(res.body).toMatchObject({ intents_updated: 1, variables_updated: 2 });
    const next = await calls.start({ call_id: id("next"), identity_hints: hints });
    expect(next.body.open_intents).toEqual([{ intent: "billing_question", status: "open", attempt_count: 1 }]);
    expect(next.body.variables).toEqual({
      plan: { value: "gold", source: null, ttl_seconds: 2592000 },
      preferred_name: { value: "Ann", source: null, ttl_seconds: 2592000 },
    });
  });

  test("the advanced form saves several intents and variables with their own source and ttl", async () => {
    const hints = { external_ids: { crm_id: id("crm") } };
    const { callId, customerRef } = await started(hints);
    const res = await calls.end({
      call_id: callId,
      customer_ref: customerRef,
      intent_updates: [
        { intent: "refund", status: "open" },
        { intent: "address_change", status: "resolved", resolution: { type: "updated", external_reference: "T-9" } },
      ],
      variable_updates: { order_id: { value: "O-1", source: "crm", ttl_seconds: 3600 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ intents_updated: 2, variables_updated: 1 });
    const next = await calls.start({ call_id: id("next"), identity_hints: hints });
    expect(next.body.open_intents).toEqual([{ intent: "refund", status: "open", attempt_count: 1 }]);
    expect(next.body.variables).toEqual({ order_id: { value: "O-1", source: "crm", ttl_seconds: 3600 } });
  });

  test("identifiers given at end match the next call (learning identities)", async () => {
    const { callId } = await started({ ani: "+14155550777" });
    const account = id("acct");
    const first = await calls.end({ call_id: callId, identity_hints: { external_ids: { account_number: account } } });
    expect(first.status).toBe(200);
    const next = await calls.start({
      call_id: id("next"),
      identity_hints: { external_ids: { account_number: account } },
    });
    expect(next.body.customer_ref).toBe(first.body.customer_ref);
    expect(next.body.identity.sources).toContain("external_id");
  });

  test("404 for a call_id never started, naming it", async () => {
    const res = await calls.end({ call_id: "never-started", customer_ref: "00000000-0000-4000-8000-000000000000" });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain("never-started");
  });

  test("404 for a customer_ref that is not a customer of this account, naming it", async () => {
    const { callId } = await started();
    const ref = "11111111-2222-4333-8444-555555555555";
    const res = await calls.end({ call_id: callId, customer_ref: ref });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain(ref);
  });

  test("409 for a call that already ended, naming it", async () => {
    const { callId, customerRef } = await started();
    expect((await calls.end({ call_id: callId, customer_ref: customerRef })).status).toBe(200);
    const res = await calls.end({ call_id: callId, customer_ref: customerRef });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain(callId);
  });

  test("400 without call_id, or without both customer_ref and identity_hints", async () => {
    const noCall = await calls.end({ customer_ref: "00000000-0000-4000-8000-000000000000" });
    expect(noCall.status).toBe(400);
    expect(noCall.body.details.issues).toContainEqual({ path: ["call_id"], message: "Required" });
    const noCustomer = await calls.end({ call_id: "x" });
    expect(noCustomer.status).toBe(400);
    expect(noCustomer.body.details.issues.map((i: { path: string[] }) => i.path)).toContainEqual(["customer_ref"]);
  });

  test("400 for simple and advanced forms in one request", async () => {
    const res = await calls.end({
      call_id: "x",
      customer_ref: "00000000-0000-4000-8000-000000000000",
      intent: "a",
      variable_updates: { v: { value: "1" } },
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toContainEqual({ path: [], message: expect.stringContaining("not both") });
  });

  test("400 for field limits: intent 128, variable name 128, simple value 1024", async () => {
    const res = await calls.end({
      call_id: "x",
      customer_ref: "00000000-0000-4000-8000-000000000000",
      intent: "i".repeat(129),
      variables: { ["n".repeat(129)]: "v", long: "v".repeat(1025) },
    });
    expect(res.status).toBe(400);
    const paths = res.body.details.issues.map((i: { path: string[] }) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["intent", `variables.${"n".repeat(129)}`, "variables.long"]));
  });

  test("400 for per-request caps: more than 100 variables or 20 intent updates", async () => {
    const variables = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, "x"]));
    const tooMany = await calls.end({ call_id: "x", customer_ref: "00000000-0000-4000-8000-000000000000", variables });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details.issues).toContainEqual({ path: ["variables"], message: expect.any(String) });
    const intent_updates = Array.from({ length: 21 }, (_, i) => ({ intent: `i${i}`, status: "open" }));
    const tooManyIntents = await calls.end({
      call_id: "x",
      customer_ref: "00000000-0000-4000-8000-000000000000",
      intent_updates,
    });
    expect(tooManyIntents.status).toBe(400);
    expect(tooManyIntents.body.details.issues).toContainEqual({
      path: ["intent_updates"],
      message: expect.any(String),
    });
  });

  test("400 for ttl_seconds that is not a positive integer up to 90 days", async () => {
    const res = await calls.end({
      call_id: "x",
      customer_ref: "00000000-0000-4000-8000-000000000000",
      variable_updates: { a: { value: "1", ttl_seconds: 0 }, b: { value: "1", ttl_seconds: 7776001 } },
    });
    expect(res.status).toBe(400);
    const paths = res.body.details.issues.map((i: { path: string[] }) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["variable_updates.a.ttl_seconds", "variable_updates.b.ttl_seconds"]));
  });

  test("400 for a card number in a variable, at the variable's path", async () => {
    const simple = await calls.end({
      call_id: "x",
      customer_ref: "00000000-0000-4000-8000-000000000000",
      variables: { card: "4111 1111 1111 1111" },
    });
    expect(simple.status).toBe(400);
    expect(simple.body.details.issues).toContainEqual({ path: ["variables", "card"], message: expect.any(String) });
    const advanced = await calls.end({
      call_id: "x",
      customer_ref: "00000000-0000-4000-8000-000000000000",
      variable_updates: { ssn: { value: "123-45-6789" } },
    });
    expect(advanced.status).toBe(400);
    expect(advanced.body.details.issues).toContainEqual({
      path: ["variable_updates", "ssn", "value"],
      message: expect.any(String),
    });
  });
});

describe("end over REST only", () => {
  test("400 for intent_status outside the enum (closed)", async () => {
    const { post } = await import("../helpers/rest-client.ts");
    const res = await post(fixture.server.url, "/v1/calls/end", fixture.apiKey, {
      call_id: "x",
      customer_ref: "00000000-0000-4000-8000-000000000000",
      intent: "billing",
      intent_status: "closed",
    });
    expect(res.status).toBe(400);
    expect(res.body.details.issues).toContainEqual({
      path: ["intent_status"],
      message: "Expected one of: open, resolved",
    });
  });
});
