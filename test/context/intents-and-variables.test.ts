import { describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

const clock = createManualClock(new Date("2026-03-01T12:00:00.000Z"));
const fixture = useTestServer({ clock });

describe.each(TRANSPORTS)("intents and variables over %s", (protocol) => {
  const calls = fixture.over(protocol);
  let n = 0;

  /** One whole call of a caller known by a fresh external id: start, then end with `end`. */
  function caller() {
    const hints = { external_ids: { crm_id: `${protocol}-caller-${++n}` } };
    return {
      hints,
      async call(end: Record<string, unknown> = {}) {
        const callId = `${protocol}-c-${++n}`;
        const started = await calls.start({ call_id: callId, identity_hints: hints });
        expect(started.status).toBe(200);
        const ended = await calls.end({ call_id: callId, customer_ref: started.body.customer_ref, ...end });
        expect(ended.status).toBe(200);
        return started.body;
      },
    };
  }

  test("attempt_count counts the ended calls that saved an intent open", async () => {
    const ann = caller();
    await ann.call({ intent: "refund", intent_status: "open" });
    await ann.call({ intent: "refund", intent_status: "open" });
    const third = await ann.call({ intent: "refund", intent_status: "open" });
    expect(third.open_intents).toEqual([{ intent: "refund", status: "open", attempt_count: 2 }]);
    const fourth = await ann.call();
    expect(fourth.open_intents).toEqual([{ intent: "refund", status: "open", attempt_count: 3 }]);
  });

  test("a later resolved save removes the intent from open_intents and restarts the count", async () => {
    const bob = caller();
    await bob.call({ intent: "refund", intent_status: "open" });
    await bob.call({
      intent_updates: [
        { intent: "refund", status: "resolved", resolution: { type: "credited", external_reference: "R-1" } },
      ],
    });
    const after = await bob.call({ intent: "refund", intent_status: "open" });
    expect(after.open_intents).toEqual([]);
    const reopened = await bob.call();
    expect(reopened.open_intents).toEqual([{ intent: "refund", status: "open", attempt_count: 1 }]);
  });

  test("an open intent adds the open_intent signal", async () => {
    const cy = caller();
    await cy.call({ intent: "upgrade", intent_status: "open" });
    const next = await cy.call();
    expect(next.identity.sources).toEqual(["external_id", "recency:1day", "open_intent"]);
    expect(next.identity.confidence).toBe(0.6);
  });

  test("variables: last write wins per name", async () => {
    const dee = caller();
    await dee.call({ variables: { plan: "silver", city: "Oslo" } });
    await dee.call({ variable_updates: { plan: { value: "gold", source: "crm" } } });
    const next = await dee.call();
    expect(next.variables).toEqual({
      city: { value: "Oslo", source: null, ttl_seconds: 2592000 },
      plan: { value: "gold", source: "crm", ttl_seconds: 2592000 },
    });
  });

  test("ends of one caller's calls at once each count their attempt and save each variable", async () => {
    // The ends update the rows they read; one that finds its row changed under it saves by upsert instead.
    const fay = caller();
    const first = await fay.call({ intent: "refund", intent_status: "open", variables: { plan: "bronze" } });
    const ENDS = 8;
    const callIds = Array.from({ length: ENDS }, (_, i) => `${protocol}-fay-${i}`);
    for (const callId of callIds) {
      const started = await calls.start({ call_id: callId, identity_hints: fay.hints });
      expect(started.status).toBe(200);
    }
    const ended = await Promise.all(
      callIds.map((callId, i) =>
        calls.end({
          call_id: callId,
          customer_ref: first.customer_ref,
          intent: "refund",
          intent_status: "open",
          variables: { plan: `tier-${i}`, [`note_${i}`]: "kept" },
        }),
      ),
    );
    expect(ended.map((response) => response.status)).toEqual(callIds.map(() => 200));
    const next = await fay.call();
    expect(next.open_intents).toEqual([{ intent: "refund", status: "open", attempt_count: ENDS + 1 }]);
    expect(Object.keys(next.variables).sort()).toEqual(["plan", ...callIds.map((_, i) => `note_${i}`)].sort());
    expect(callIds.map((_, i) => `tier-${i}`)).toContain(next.variables.plan.value);
  });

  test("a variable is returned only until its ttl_seconds has elapsed", async () => {
    const eve = caller();
    await eve.call({ variable_updates: { otp_context: { value: "pending", source: "ivr", ttl_seconds: 60 } } });
    clock.advance(59_000);
    expect((await eve.call()).variables).toHaveProperty("otp_context");
    clock.advance(1_000);
    expect((await eve.call()).variables).not.toHaveProperty("otp_context");
  });
});
