import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { PAYLOADS_DOC, renderPlatformPayloads } from "../../scripts/platform-payloads.ts";
import { PLATFORM_EVENTS } from "../../src/cli/simulate/platform-events.ts";
import { SIMULATED_DEFAULTS } from "../../src/cli/simulate/simulated-call.ts";
import { PLATFORM_CASES } from "../integrations/platform-case.ts";

// `simulate`'s payloads against the fixtures the contract tests sign with the platforms' SDKs (Vapi's and Telnyx's
// typed by the SDKs themselves): every field `simulate` sends is a field the platform sends, with a value of the
// same type. The fixtures may carry more (transcripts, costs); simulate sends nothing a platform would not.

/** Key paths of a JSON value, arrays by position, each with the type of its value. */
function shape(value: unknown, path = ""): Map<string, string> {
  const paths = new Map<string, string>();
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      for (const [innerPath, type] of shape(inner, `${path}.${key}`)) paths.set(innerPath, type);
    }
    if (path !== "") paths.set(path, Array.isArray(value) ? "array" : "object");
  } else {
    paths.set(path, value === null ? "null" : typeof value);
  }
  return paths;
}

const parse = (body: string) =>
  body.trimStart().startsWith("{") ? JSON.parse(body) : Object.fromEntries(new URLSearchParams(body));

/** Fields the fixtures leave out on purpose, each with why `simulate` sends it. */
const SENT_BEYOND_THE_FIXTURE: Record<string, string> = {
  // The fixture's metadata is empty; a real call_analyzed carries what the inbound answer set, as simulate does.
  "retell:call_analyzed:.call.metadata.caller_context_call_id": "string",
};

describe("simulate's payloads have the platforms' shapes", () => {
  for (const platformCase of PLATFORM_CASES) {
    const events = Object.entries(PLATFORM_EVENTS[platformCase.platform as keyof typeof PLATFORM_EVENTS]);
    const variable = platformCase.saved.variable.replace(/^var_/, "");
    const call = {
      ...SIMULATED_DEFAULTS,
      callId: platformCase.fixtureCallId ?? "call-simulated",
      variables: { [variable]: platformCase.saved.value },
      nowMs: Date.now(),
    };
    for (const [name, event] of events) {
      test(`${platformCase.platform} ${name}`, () => {
        const fixture =
          event.kind === "inbound"
            ? platformCase.inbound
            : event.kind === "end"
              ? platformCase.end
              : platformCase.ignored;
        const fixtureShape = shape(parse(fixture));
        const sent = shape(parse(event.body(call)));
        const strangers = [...sent]
          .filter(([path, type]) => fixtureShape.get(path) !== type)
          .filter(([path, type]) => SENT_BEYOND_THE_FIXTURE[`${platformCase.platform}:${name}:${path}`] !== type)
          .map(([path, type]) => `${path}: ${type} (fixture: ${fixtureShape.get(path) ?? "absent"})`);
        expect(strangers, `${platformCase.platform} ${name}: fields the platform does not send so`).toEqual([]);
      });
    }
  }
});

test("docs/platform-payloads.md shows what simulate sends (node scripts/platform-payloads.ts rewrites it)", () => {
  expect(readFileSync(PAYLOADS_DOC, "utf8")).toBe(renderPlatformPayloads());
});
