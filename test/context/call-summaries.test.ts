import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import { createManualClock } from "../../src/domain/clock.ts";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { columnsHolding } from "../helpers/columns-holding.ts";
import { createRpcClient, type RpcClient } from "../helpers/rpc-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// A call's summary, saved at its end, comes back at the next start and
// identify of the same customer (recent_calls), and in the customer record.

const clock = createManualClock(new Date("2026-05-04T09:00:00.000Z"));
const fixture = useTestServer({ clock });
let rpc: RpcClient;
beforeAll(() => {
  rpc = createRpcClient(fixture.server.url);
});
afterAll(() => rpc?.close());

const { identifyCall } = CallerContextService.method as unknown as Record<string, DescMethodUnary>;
const { getCustomer, forgetCustomer } = CustomerService.method as unknown as Record<string, DescMethodUnary>;
const MINUTE = 60_000;

describe.each(TRANSPORTS)("call summaries over %s", (via) => {
  const calls = fixture.over(via);

  /** A caller known by a fresh external id; each call starts, lasts a minute and ends with `end`. */
  function caller() {
    const hints = { external_ids: { crm_id: `sum-${via}-${randomUUID()}` } };
    return {
      hints,
      async start(extra: object = {}) {
        const callId = `sum-${randomUUID()}`;
        const started = await calls.start({ call_id: callId, identity_hints: hints, ...extra });
        expect(started.status).toBe(200);
        return { callId, body: started.body };
      },
      async call(end: Record<string, unknown> = {}) {
        const { callId, body } = await this.start();
        clock.advance(MINUTE);
        const ended = await calls.end({ call_id: callId, customer_ref: body.customer_ref, ...end });
        expect(ended.status).toBe(200);
        return body;
      },
    };
  }

  test("a summary saved at end comes back at the next start, with the call's times and intents", async () => {
    const ann = caller();
    const first = await ann.start();
    const began = clock.now().toISOString();
    clock.advance(MINUTE);
    const ended = await calls.end({
      call_id: first.callId,
      customer_ref: first.body.customer_ref,
      intent: "billing_question",
      intent_status: "open",
      summary: "Asked why the March invoice is higher; promised a breakdown by email.",
    });
    expect(ended.status).toBe(200);
    const next = await ann.start();
    expect(next.body.recent_calls).toEqual([
      {
        call_start: began,
        call_end: clock.now().toISOString(),
        intents: [{ intent: "billing_question", status: "open" }],
        summary: "Asked why the March invoice is higher; promised a breakdown by email.",
      },
    ]);
  });

  test("the advanced form saves a summary with every intent it updated", async () => {
    const bob = caller();
    await bob.call({
      intent_updates: [
        { intent: "refund", status: "resolved", resolution: { type: "credited", external_reference: "R-9" } },
        { intent: "address_change", status: "open" },
      ],
      variable_updates: { plan: { value: "gold" } },
      summary: "Refund credited; the new address still needs a document.",
    });
    const next = await bob.start();
    expect(next.body.recent_calls).toHaveLength(1);
    expect(next.body.recent_calls[0].intents).toEqual([
      { intent: "refund", status: "resolved" },
      { intent: "address_change", status: "open" },
    ]);
    expect(next.body.recent_calls[0].summary).toBe("Refund credited; the new address still needs a document.");
  });

  test("the 3 latest summarised calls come back newest first; calls without a summary are left out", async () => {
    const cy = caller();
    for (const summary of ["one", "two", undefined, "three", "four", ""]) {
      await cy.call(summary === undefined ? {} : { summary });
    }
    const next = await cy.start();
    expect(next.body.recent_calls.map((c: { summary: string }) => c.summary)).toEqual(["four", "three", "two"]);
    const ends = next.body.recent_calls.map((c: { call_end: string }) => c.call_end);
    expect([...ends].sort().reverse()).toEqual(ends);
  });

  test("identify returns the summaries of the customer it finds", async () => {
    const dee = caller();
    await dee.call({ summary: "Wanted to pause the subscription over the summer." });
    const stranger = await calls.start({
      call_id: `sum-${randomUUID()}`,
      identity_hints: { ani: `+1415888${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}` },
    });
    expect(stranger.body.recent_calls).toBeUndefined();
    const found = await rpc.call(via, identifyCall, fixture.apiKey, {
      call_id: stranger.body.call_id,
      identity_hints: dee.hints,
    });
    expect(found.status).toBe(200);
    expect(found.body.recent_calls.map((c: { summary: string }) => c.summary)).toEqual([
      "Wanted to pause the subscription over the summer.",
    ]);
  });

  test("nothing is recalled for a caller the start would ignore; the response keeps the spec's shape", async () => {
    const eve = caller();
    await eve.call({ summary: "Private matter." });
    const unknown = await calls.start({
      call_id: `sum-${randomUUID()}`,
      identity_hints: { external_ids: { crm_id: `nobody-${randomUUID()}` } },
    });
    expect(Object.keys(unknown.body).sort()).toEqual(
      ["call_id", "call_start", "customer_ref", "identity", "open_intents", "variables"].sort(),
    );
  });

  test("the customer record shows each call's summary and intents", async () => {
    const fay = caller();
    const first = await fay.call({ intent: "delivery", summary: "Parcel left with a neighbour." });
    await fay.call();
    const record = await rpc.call(via, getCustomer, fixture.apiKey, { customer_ref: first.customer_ref });
    expect(record.status).toBe(200);
    expect(
      record.body.calls.map((c: { summary: string | null; intents: unknown[] }) => [c.summary, c.intents]),
    ).toEqual([
      [null, []],
      ["Parcel left with a neighbour.", [{ intent: "delivery", status: "open" }]],
    ]);
  });

  test("a call_id started again forgets the summary its earlier call ended with", async () => {
    const gus = caller();
    const first = await gus.start();
    clock.advance(MINUTE);
    await calls.end({ call_id: first.callId, customer_ref: first.body.customer_ref, summary: "First use of the id." });
    clock.advance(31 * 24 * 60 * MINUTE);
    const again = await calls.start({ call_id: first.callId, identity_hints: gus.hints });
    expect(again.status).toBe(200);
    const record = await rpc.call(via, getCustomer, fixture.apiKey, { customer_ref: first.body.customer_ref });
    expect(record.body.calls.find((c: { call_id: string }) => c.call_id === first.callId).summary).toBeNull();
  });
  test("a call_id started again by a caller marked do-not-remember keeps nothing of the earlier call's end", async () => {
    const gus = caller();
    const first = await gus.start();
    clock.advance(MINUTE);
    const summary = `Refund for order ${randomUUID()}.`;
    await calls.end({ call_id: first.callId, customer_ref: first.body.customer_ref, summary, intent: "refund" });
    const forgotten = caller();
    const marked = await forgotten.start();
    const forget = await rpc.call(via, forgetCustomer, fixture.apiKey, { customer_ref: marked.body.customer_ref });
    expect(forget.status).toBe(200);
    clock.advance(31 * 24 * 60 * MINUTE);
    const again = await calls.start({ call_id: first.callId, identity_hints: forgotten.hints });
    expect(again.status).toBe(200);
    expect(await columnsHolding(fixture.server.context.database.db, [summary])).toEqual([]);
  });
});

describe.each(TRANSPORTS)("summary validation over %s", (via) => {
  const calls = fixture.over(via);

  async function openCall() {
    const callId = `sumv-${randomUUID()}`;
    const started = await calls.start({
      call_id: callId,
      identity_hints: { external_ids: { crm_id: `sumv-${randomUUID()}` } },
    });
    return { call_id: callId, customer_ref: started.body.customer_ref };
  }

  test("400 naming summary for one over 4,000 characters; 4,000 are saved", async () => {
    const call = await openCall();
    const refused = await calls.end({ ...call, summary: "x".repeat(4001) });
    expect(refused.status).toBe(400);
    expect(refused.body.details.issues).toEqual([{ path: ["summary"], message: "Must be at most 4000 characters" }]);
    if (via === "rest") expect(refused.body.error).toBe("Bad Request");
    const saved = await calls.end({ ...call, summary: "x".repeat(4000) });
    expect(saved.status).toBe(200);
  });

  test("400 naming summary for a card number in it; nothing of the end is saved", async () => {
    const call = await openCall();
    const refused = await calls.end({ ...call, intent: "payment", summary: "Paid with 4111 1111 1111 1111." });
    expect(refused.status).toBe(400);
    expect(refused.body.details.issues).toEqual([
      { path: ["summary"], message: expect.stringContaining("card number or national identifier") },
    ]);
    expect((await calls.end(call)).status).toBe(200);
  });
});
