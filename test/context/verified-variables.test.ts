import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// A variable saved with requires_verification is heard only by a verified
// caller: never on the caller's number alone (which anyone can present), but
// after identify with verified, or when the client sent the customer_ref.

const fixture = useTestServer();
let rpc: RpcClient;
beforeAll(() => {
  rpc = createRpcClient(fixture.server.url);
});
afterAll(() => rpc?.close());

const { identifyCall } = CallerContextService.method as unknown as Record<string, DescMethodUnary>;
const { getCustomer } = CustomerService.method as unknown as Record<string, DescMethodUnary>;
let seq = 0;
const uniqueMobile = () => `+4477009${String(process.pid % 100).padStart(2, "0")}${String(++seq).padStart(3, "0")}`;

const HOME = { value: "12 Acacia Avenue", source: "crm", requires_verification: true };

describe.each(TRANSPORTS)("variables only a verified caller hears, over %s", (via) => {
  const calls = fixture.over(via);

  /** A customer who called from a mobile number and saved a plan and a home address only verified callers hear. */
  async function knownCustomer() {
    const ani = uniqueMobile();
    const hints = { ani };
    const telco = { line_type: "mobile" };
    const callId = `vv-${randomUUID()}`;
    const first = await calls.start({ call_id: callId, identity_hints: hints, telco });
    const ended = await calls.end({
      call_id: callId,
      customer_ref: first.body.customer_ref,
      variable_updates: {
        plan: { value: "gold" },
        home_address: HOME,
        last4: { value: "4242", requires_verification: true },
      },
    });
    expect(ended.status).toBe(200);
    return { ani, hints, telco, ref: first.body.customer_ref as string };
  }

  test("a start on the number alone shares the plan, holds the address back and names it", async () => {
    const c = await knownCustomer();
    const next = await calls.start({ call_id: `vv-${randomUUID()}`, identity_hints: c.hints, telco: c.telco });
    expect(next.body.identity.recommendation).toBe("reuse");
    expect(next.body.variables).toEqual({ plan: { value: "gold", source: null, ttl_seconds: 2592000 } });
    expect(next.body.held_back_variables).toEqual(["home_address", "last4"]);
    expect(JSON.stringify(next.body)).not.toContain("Acacia");
  });

  test("identify with verified gives the held-back variables, marked, and lists none held back", async () => {
    const c = await knownCustomer();
    const next = await calls.start({ call_id: `vv-${randomUUID()}`, identity_hints: c.hints, telco: c.telco });
    const unverified = await rpc.call(via, identifyCall, fixture.apiKey, {
      call_id: next.body.call_id,
      identity_hints: c.hints,
    });
    expect(unverified.body.variables.home_address).toBeUndefined();
    expect(unverified.body.held_back_variables).toEqual(["home_address", "last4"]);
    const verified = await rpc.call(via, identifyCall, fixture.apiKey, {
      call_id: next.body.call_id,
      identity_hints: c.hints,
      verified: true,
    });
    expect(verified.status).toBe(200);
    expect(verified.body.variables.home_address).toEqual({
      value: "12 Acacia Avenue",
      source: "crm",
      ttl_seconds: 2592000,
      requires_verification: true,
    });
    expect(verified.body.variables.last4.value).toBe("4242");
    expect(verified.body.held_back_variables).toBeUndefined();
  });

  test("a start that sends the customer_ref hears them", async () => {
    const c = await knownCustomer();
    const next = await calls.start({
      call_id: `vv-${randomUUID()}`,
      identity_hints: { ani: c.ani, customer_ref: c.ref },
    });
    expect(next.body.variables.home_address.value).toBe("12 Acacia Avenue");
    expect(next.body.held_back_variables).toBeUndefined();
  });

  test("an external id is not proof either; a stranger hears neither the values nor the names", async () => {
    const c = await knownCustomer();
    const crm = `vv-${randomUUID()}`;
    const linked = await calls.start({
      call_id: `vv-${randomUUID()}`,
      identity_hints: { ani: c.ani, external_ids: { crm_id: crm }, customer_ref: c.ref },
    });
    expect(linked.status).toBe(200);
    const byId = await calls.start({
      call_id: `vv-${randomUUID()}`,
      identity_hints: { external_ids: { crm_id: crm } },
    });
    expect(byId.body.customer_ref).toBe(c.ref);
    expect(byId.body.variables.home_address).toBeUndefined();
    expect(byId.body.held_back_variables).toEqual(["home_address", "last4"]);
    const stranger = await calls.start({ call_id: `vv-${randomUUID()}`, identity_hints: { ani: uniqueMobile() } });
    expect(stranger.body.held_back_variables).toBeUndefined();
  });

  test("saving the variable again without the flag shares it; the customer record marks the flagged ones", async () => {
    const c = await knownCustomer();
    const record = await rpc.call(via, getCustomer, fixture.apiKey, { customer_ref: c.ref });
    expect(record.body.variables.home_address.requires_verification).toBe(true);
    expect(record.body.variables.plan.requires_verification).toBeUndefined();
    const callId = `vv-${randomUUID()}`;
    await calls.start({ call_id: callId, identity_hints: c.hints, telco: c.telco });
    await calls.end({ call_id: callId, customer_ref: c.ref, variable_updates: { last4: { value: "4242" } } });
    const next = await calls.start({ call_id: `vv-${randomUUID()}`, identity_hints: c.hints, telco: c.telco });
    expect(next.body.variables.last4.value).toBe("4242");
    expect(next.body.held_back_variables).toEqual(["home_address"]);
  });
});

describe("requires_verification validation", () => {
  test.each([["yes"], [1], [{}]])("400 naming the field for requires_verification %j", async (flag) => {
    const calls = fixture.over("rest");
    const callId = `vv-${randomUUID()}`;
    const started = await calls.start({ call_id: callId, identity_hints: { ani: uniqueMobile() } });
    const ended = await calls.end({
      call_id: callId,
      customer_ref: started.body.customer_ref,
      variable_updates: { home_address: { value: "x", requires_verification: flag } },
    });
    expect(ended.status).toBe(400);
    expect(ended.body.error).toBe("Bad Request");
    expect(ended.body.details.issues).toEqual([
      { path: ["variable_updates", "home_address", "requires_verification"], message: "Expected a boolean" },
    ]);
  });
});
