import { describe, expect, test } from "vitest";
import { TRANSPORTS } from "../helpers/call-client.ts";
import { useTestServer } from "../helpers/test-server-fixture.ts";

// The review's findings, over the real wire: card numbers written with dots,
// slashes or letters around them, an SSN written with spaces, and any of them
// in an intent, a resolution reference, a variable's name or its source.

const fixture = useTestServer();

const WRITTEN_AS = [
  "4111.1111.1111.1111",
  "4111/1111/1111/1111",
  "cc4111111111111111",
  "card:4111-1111-1111-1111exp",
  "078 05 1120",
  "078.05.1120",
  "AB 12 34 56 C",
];

/** Where each free-text field of an end sits, and the issue path it is refused at. */
const FIELDS: readonly { name: string; end: (text: string) => object; path: string[] }[] = [
  { name: "a variable value", end: (text) => ({ variables: { note: text } }), path: ["variables", "note"] },
  { name: "a variable name", end: (text) => ({ variables: { [text]: "x" } }), path: ["variables", "TEXT"] },
  { name: "an intent", end: (text) => ({ intent: text, intent_status: "open" }), path: ["intent"] },
  {
    name: "a variable source",
    end: (text) => ({ variable_updates: { note: { value: "ok", source: text } } }),
    path: ["variable_updates", "note", "source"],
  },
  {
    name: "an advanced intent",
    end: (text) => ({ intent_updates: [{ intent: text, status: "open" }] }),
    path: ["intent_updates", "0", "intent"],
  },
  {
    name: "a resolution's external reference",
    end: (text) => ({
      intent_updates: [
        { intent: "refund", status: "resolved", resolution: { type: "refund_issued", external_reference: text } },
      ],
    }),
    path: ["intent_updates", "0", "resolution", "external_reference"],
  },
  { name: "a summary", end: (text) => ({ summary: `The caller read out ${text}.` }), path: ["summary"] },
  {
    name: "a summary beside the advanced form",
    end: (text) => ({ intent_updates: [{ intent: "refund", status: "open" }], summary: `Card ${text}` }),
    path: ["summary"],
  },
  {
    name: "a resolution's type",
    end: (text) => ({
      intent_updates: [{ intent: "refund", status: "resolved", resolution: { type: text, external_reference: "R-1" } }],
    }),
    path: ["intent_updates", "0", "resolution", "type"],
  },
];

describe.each(TRANSPORTS)("the sensitive-data guard over %s", (protocol) => {
  const calls = fixture.over(protocol);
  let n = 0;

  async function started() {
    const hints = { external_ids: { crm_id: `pii-${protocol}-${++n}` } };
    const callId = `pii-${protocol}-call-${++n}`;
    const start = await calls.start({ call_id: callId, identity_hints: hints });
    expect(start.status).toBe(200);
    return { hints, callId, customerRef: start.body.customer_ref as string };
  }

  test.each(FIELDS.flatMap((field) => WRITTEN_AS.map((text) => ({ ...field, text }))))(
    "400 for $text in $name, at its path",
    async ({ end, path, text }) => {
      const call = await started();
      const ended = await calls.end({ call_id: call.callId, customer_ref: call.customerRef, ...end(text) });
      expect(ended.status).toBe(400);
      expect(ended.body.details.issues).toContainEqual({
        path: path.map((part) => (part === "TEXT" ? text : part)),
        message: expect.stringContaining("card number or national identifier"),
      });
    },
  );

  test("a refused end saves nothing of what came with it; the same end without the card number is saved", async () => {
    const call = await started();
    const body = {
      call_id: call.callId,
      customer_ref: call.customerRef,
      variable_updates: { plan: { value: "gold" }, note: { value: "ok", source: "agent 4111.1111.1111.1111" } },
      intent_updates: [{ intent: "upgrade", status: "open" }],
    };
    expect((await calls.end(body)).status).toBe(400);
    const next = await calls.start({ call_id: `${call.callId}-next`, identity_hints: call.hints });
    expect(next.body.variables).toEqual({});
    expect(next.body.open_intents).toEqual([]);

    const clean = { ...body, variable_updates: { ...body.variable_updates, note: { value: "ok", source: "agent" } } };
    expect((await calls.end(clean)).status).toBe(200);
    const after = await calls.start({ call_id: `${call.callId}-after`, identity_hints: call.hints });
    expect(Object.keys(after.body.variables).sort()).toEqual(["note", "plan"]);
  });

  test.each([
    "+1 415 555 0123",
    "order A-10442",
    "2026-03-01",
    "9c5b94b1-35ad-49bb-b118-8e8fbe61b7f3",
    "call me at 5pm",
  ])("ordinary text %j is saved", async (text) => {
    const call = await started();
    const ended = await calls.end({ call_id: call.callId, customer_ref: call.customerRef, variables: { note: text } });
    expect(ended.status).toBe(200);
  });
});
