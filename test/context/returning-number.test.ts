import { describe, expect, test } from "vitest";
import { createManualClock } from "../../src/domain/clock.ts";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// A caller's number with no line data (no voice platform sends any) is still a
// number we know: ringing back days later, the caller is asked to confirm, with
// the context shared, instead of being greeted as a stranger.

const DAY = 24 * 60 * 60 * 1000;
const clock = createManualClock(new Date("2026-03-02T09:00:00.000Z"));
const fixture = useTestServer({ clock });

describe.each(TRANSPORTS)("a returning number without line data, over %s", (protocol) => {
  const calls = fixture.over(protocol);
  const ani = protocol === "rest" ? "+14155550611" : "+14155550612";

  test("two days later it gets confirm with the open intent and the variables", async () => {
    const first = await calls.start({ call_id: `${protocol}-back-1`, identity_hints: { ani } });
    expect(first.body.identity.recommendation).toBe("ignore");
    await calls.end({
      call_id: `${protocol}-back-1`,
      customer_ref: first.body.customer_ref,
      intent: "refund",
      intent_status: "open",
      variables: { order_number: "1182" },
    });

    clock.advance(2 * DAY);
    const again = await calls.start({ call_id: `${protocol}-back-2`, identity_hints: { ani } });
    expect(again.body.customer_ref).toBe(first.body.customer_ref);
    expect(again.body.identity).toEqual({
      confidence: 0.3,
      level: "low",
      sources: ["ani:unknown", "open_intent"],
      recommendation: "confirm",
    });
    expect(again.body.open_intents).toEqual([expect.objectContaining({ intent: "refund", status: "open" })]);
    expect(again.body.variables.order_number).toEqual(expect.objectContaining({ value: "1182" }));
  });

  test("a number seen more than 90 days ago is a new caller again", async () => {
    const number = protocol === "rest" ? "+14155550613" : "+14155550614";
    const first = await calls.start({ call_id: `${protocol}-old-1`, identity_hints: { ani: number } });
    clock.advance(91 * DAY);
    const later = await calls.start({ call_id: `${protocol}-old-2`, identity_hints: { ani: number } });
    expect(later.body.customer_ref).not.toBe(first.body.customer_ref);
    expect(later.body.identity.recommendation).toBe("ignore");
  });
});
