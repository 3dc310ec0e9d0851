import { describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { forKey, TRANSPORTS } from "../helpers/call-client.ts";
import { createAccountWithKey, request } from "../helpers/rest-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

const clock = createManualClock(new Date("2026-05-01T08:00:00.000Z"));
const fixture = useTestServer({ clock });

/** Status and body: what a replay must repeat (the guard headers move on). */
const reply = ({ status, body }: { status: number; body: unknown }) => ({ status, body });

describe.each(TRANSPORTS)("Idempotency-Key over %s", (protocol) => {
  const calls = fixture.over(protocol);
  let n = 0;
  const next = (label: string) => `${protocol}-${label}-${++n}`;

  async function startedCall() {
    const hints = { external_ids: { crm_id: next("crm") } };
    const callId = next("call");
    const res = await calls.start({ call_id: callId, identity_hints: hints });
    return { callId, hints, customerRef: res.body.customer_ref as string };
  }

  test("a repeat with the same key returns the first response and saves nothing again", async () => {
    const { callId, hints, customerRef } = await startedCall();
    const body = { call_id: callId, customer_ref: customerRef, intent: "refund", intent_status: "open" };
    const key1 = { "Idempotency-Key": next("key") };
    const first = await calls.end(body, key1);
    clock.advance(5_000);
    const again = await calls.end(body, key1);
    expect(first.status).toBe(200);
    expect(reply(again)).toEqual(reply(first));
    const later = await calls.start({ call_id: next("call"), identity_hints: hints });
    expect(later.body.open_intents).toEqual([{ intent: "refund", status: "open", attempt_count: 1 }]);
  });

  test("X-Idempotency-Key is the same header", async () => {
    const { callId, customerRef } = await startedCall();
    const body = { call_id: callId, customer_ref: customerRef };
    const value = next("key");
    const first = await calls.end(body, { "Idempotency-Key": value });
    const again = await calls.end(body, { "X-Idempotency-Key": value });
    expect(reply(again)).toEqual(reply(first));
  });

  test("concurrent repeats of one key: one save and identical 200s", async () => {
    const { callId, hints, customerRef } = await startedCall();
    const body = { call_id: callId, customer_ref: customerRef, intent: "upgrade", intent_status: "open" };
    const header = { "Idempotency-Key": next("key") };
    const results = await Promise.all(Array.from({ length: 8 }, () => calls.end(body, header)));
    for (const result of results) expect(reply(result)).toEqual(reply(results[0]));
    expect(results[0].status).toBe(200);
    const later = await calls.start({ call_id: next("call"), identity_hints: hints });
    expect(later.body.open_intents).toEqual([{ intent: "upgrade", status: "open", attempt_count: 1 }]);
  });

  test("the same key with a different body is refused with 422 and saves nothing", async () => {
    const { callId, hints, customerRef } = await startedCall();
    const header = { "Idempotency-Key": next("key") };
    expect((await calls.end({ call_id: callId, customer_ref: customerRef }, header)).status).toBe(200);
    const other = await calls.end({ call_id: callId, customer_ref: customerRef, variables: { a: "1" } }, header);
    expect(other.status).toBe(422);
    expect(other.body.message).toContain("Idempotency-Key");
    const later = await calls.start({ call_id: next("call"), identity_hints: hints });
    expect(later.body.variables).toEqual({});
  });

  test("a key already used for another call's end is refused with 422, and that call stays open", async () => {
    const first = await startedCall();
    const second = await startedCall();
    const header = { "Idempotency-Key": next("key") };
    expect((await calls.end({ call_id: first.callId, customer_ref: first.customerRef }, header)).status).toBe(200);
    const taken = await calls.end(
      { call_id: second.callId, customer_ref: second.customerRef, variables: { plan: "gold" } },
      header,
    );
    expect(taken.status).toBe(422);
    // The end's one statement had closed the call before finding the key taken: all of it was undone.
    const later = await calls.start({ call_id: next("call"), identity_hints: second.hints });
    expect(later.body.variables).toEqual({});
    expect((await calls.end({ call_id: second.callId, customer_ref: second.customerRef })).status).toBe(200);
  });

  test("keys expire after 24 hours: the repeat is then an end of an ended call", async () => {
    const { callId, customerRef } = await startedCall();
    const body = { call_id: callId, customer_ref: customerRef };
    const header = { "Idempotency-Key": next("key") };
    expect((await calls.end(body, header)).status).toBe(200);
    clock.advance(24 * 60 * 60 * 1000 - 1);
    expect((await calls.end(body, header)).status).toBe(200);
    clock.advance(1);
    expect((await calls.end(body, header)).status).toBe(409);
  });

  test("keys are scoped per account: another account's key of the same value is its own", async () => {
    const other = await createAccountWithKey(fixture.server.url);
    const theirs = forKey(fixture.calls, protocol, other.apiKey);
    {
      const value = next("shared-key");
      const mine = await startedCall();
      const theirCall = next("call");
      const started = await theirs.start({ call_id: theirCall, identity_hints: { ani: "+14155550900" } });
      expect(
        (await calls.end({ call_id: mine.callId, customer_ref: mine.customerRef }, { "Idempotency-Key": value }))
          .status,
      ).toBe(200);
      const res = await theirs.end(
        { call_id: theirCall, customer_ref: started.body.customer_ref },
        { "Idempotency-Key": value },
      );
      expect(res.status).toBe(200);
      expect(res.body.call_id).toBe(theirCall);
    }
  });
});

describe("Idempotency-Key over REST", () => {
  test("the replay is byte-for-byte the first response", async () => {
    const start = await request(fixture.server.url, "POST", "/v1/calls/start", {
      token: fixture.apiKey,
      body: { call_id: "bytes-1", identity_hints: { ani: "+14155550950" } },
    });
    const send = () =>
      fetch(new URL("/v1/calls/end", fixture.server.url), {
        method: "POST",
        headers: {
          authorization: `Bearer ${fixture.apiKey}`,
          "content-type": "application/json",
          "idempotency-key": "bytes-key",
        },
        body: JSON.stringify({ call_id: "bytes-1", customer_ref: start.body.customer_ref, variables: { a: "1" } }),
      });
    const first = await send();
    const firstText = await first.text();
    clock.advance(1234);
    const again = await send();
    expect(again.status).toBe(first.status);
    expect(await again.text()).toBe(firstText);
  });
});
