import { describe, expect, test } from "vitest";
import type { EndCallInput } from "../../src/domain/call.ts";
import { DomainError, type FieldIssue } from "../../src/domain/domain-error.ts";
import type { SensitiveDataPolicy } from "../../src/domain/sensitive-data.ts";
import { validateEndCall } from "../../src/domain/validate-end.ts";

const REF = "0b7f2c1e-4d5a-4e6b-9c8d-1a2b3c4d5e6f";
const CARD = "4111 1111 1111 1111";

function end(extra: Partial<EndCallInput>): EndCallInput {
  return { callId: "call-1", customerRef: REF, variables: {}, intentUpdates: [], variableUpdates: {}, ...extra };
}

function issuesOf(input: EndCallInput, policy: SensitiveDataPolicy = "reject"): readonly FieldIssue[] {
  try {
    validateEndCall(input, policy);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("invalid_argument");
    expect((error as DomainError).message).toBe("Validation failed");
    return (error as DomainError).issues;
  }
  throw new Error("expected validateEndCall to throw");
}

const paths = (issues: readonly FieldIssue[]) => issues.map((issue) => issue.path);

function manyVariables(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`v${i}`, "x"]));
}

describe("validateEndCall: identification", () => {
  test("a missing call_id is Required at [call_id]", () => {
    expect(issuesOf(end({ callId: "" }))).toEqual([{ path: ["call_id"], message: "Required" }]);
  });

  test("call_id of 129 characters is too long", () => {
    expect(issuesOf(end({ callId: "c".repeat(129) }))).toEqual([
      { path: ["call_id"], message: "Must be at most 128 characters" },
    ]);
  });

  test("neither customer_ref nor identity_hints is invalid_argument (400)", () => {
    expect(issuesOf(end({ customerRef: undefined }))).toEqual([
      { path: ["customer_ref"], message: "Either customer_ref or identity_hints is required" },
    ]);
  });

  test("identity_hints without customer_ref is enough", () => {
    const command = validateEndCall(
      end({ customerRef: undefined, identityHints: { ani: "+14155550123", externalIds: {} } }),
      "reject",
    );
    expect(command.customerRef).toBeUndefined();
    expect(command.identityHints?.ani).toBe("+14155550123");
  });
});

describe("validateEndCall: simple form", () => {
  test("variables get source null and the default ttl of 2592000 seconds", () => {
    const command = validateEndCall(end({ variables: { preferred_name: "Ann", plan: "gold" } }), "reject");
    expect([...command.variables]).toEqual([
      ["preferred_name", { value: "Ann", source: null, ttlSeconds: 2_592_000, requiresVerification: false }],
      ["plan", { value: "gold", source: null, ttlSeconds: 2_592_000, requiresVerification: false }],
    ]);
  });

  test("an intent without status is saved open; with a status it keeps it", () => {
    expect(validateEndCall(end({ intent: "billing" }), "reject").intents).toEqual([
      { intent: "billing", status: "open" },
    ]);
    expect(validateEndCall(end({ intent: "billing", intentStatus: "resolved" }), "reject").intents).toEqual([
      { intent: "billing", status: "resolved" },
    ]);
  });

  test("intent_status without intent is an issue at [intent]", () => {
    expect(issuesOf(end({ intentStatus: "open" }))).toEqual([
      { path: ["intent"], message: "Required when intent_status is set" },
    ]);
  });

  test("intent of 129 characters is too long", () => {
    expect(issuesOf(end({ intent: "i".repeat(129) }))).toEqual([
      { path: ["intent"], message: "Must be at most 128 characters" },
    ]);
  });

  test("a variable name of 129 characters is an issue at its path", () => {
    const name = "n".repeat(129);
    expect(issuesOf(end({ variables: { [name]: "x" } }))).toEqual([
      { path: ["variables", name], message: "Must be at most 128 characters" },
    ]);
  });

  test("a value of 1024 characters passes, 1025 is an issue at [variables, NAME]", () => {
    expect(() => validateEndCall(end({ variables: { note: "v".repeat(1024) } }), "reject")).not.toThrow();
    expect(issuesOf(end({ variables: { note: "v".repeat(1025) } }))).toEqual([
      { path: ["variables", "note"], message: "Must be at most 1024 characters" },
    ]);
  });

  test("100 variables pass, 101 are an issue at [variables]", () => {
    expect(validateEndCall(end({ variables: manyVariables(100) }), "reject").variables.size).toBe(100);
    expect(issuesOf(end({ variables: manyVariables(101) }))).toEqual([
      { path: ["variables"], message: "Must have at most 100 entries" },
    ]);
  });

  test("a sensitive value is an issue at [variables, NAME] under reject", () => {
    expect(paths(issuesOf(end({ variables: { card: CARD } }), "reject"))).toEqual([["variables", "card"]]);
  });

  test("a sensitive value is stored as [REDACTED] under redact and as sent under off", () => {
    expect(validateEndCall(end({ variables: { card: CARD } }), "redact").variables.get("card")?.value).toBe(
      "[REDACTED]",
    );
    expect(validateEndCall(end({ variables: { card: CARD } }), "off").variables.get("card")?.value).toBe(CARD);
  });
});

describe("validateEndCall: advanced form", () => {
  test("variable_updates keep their source and ttl; a missing ttl gets the default", () => {
    const command = validateEndCall(
      end({
        variableUpdates: {
          plan: { value: "gold", source: "crm", ttlSeconds: 3600 },
          note: { value: "called twice" },
        },
      }),
      "reject",
    );
    expect(command.variables.get("plan")).toEqual({
      value: "gold",
      source: "crm",
      ttlSeconds: 3600,
      requiresVerification: false,
    });
    expect(command.variables.get("note")).toEqual({
      value: "called twice",
      source: null,
      ttlSeconds: 2_592_000,
      requiresVerification: false,
    });
  });

  test.each([0, -1, 7_776_001, 1.5])("ttl_seconds %s is an issue at its path", (ttlSeconds) => {
    expect(issuesOf(end({ variableUpdates: { plan: { value: "gold", ttlSeconds } } }))).toEqual([
      { path: ["variable_updates", "plan", "ttl_seconds"], message: "Must be an integer from 1 to 7776000" },
    ]);
  });

  test.each([1, 7_776_000])("ttl_seconds %s is accepted", (ttlSeconds) => {
    expect(
      validateEndCall(end({ variableUpdates: { plan: { value: "gold", ttlSeconds } } }), "reject").variables.get("plan")
        ?.ttlSeconds,
    ).toBe(ttlSeconds);
  });

  test("a variable name of 129 characters is an issue at [variable_updates, NAME]", () => {
    const name = "n".repeat(129);
    expect(issuesOf(end({ variableUpdates: { [name]: { value: "x" } } }))).toEqual([
      { path: ["variable_updates", name], message: "Must be at most 128 characters" },
    ]);
  });

  test("101 variable_updates are an issue at [variable_updates]", () => {
    const updates = Object.fromEntries(Object.entries(manyVariables(101)).map(([k, value]) => [k, { value }]));
    expect(paths(issuesOf(end({ variableUpdates: updates })))).toEqual([["variable_updates"]]);
  });

  test("20 intent updates pass, 21 are an issue at [intent_updates]", () => {
    const updates = (n: number) => Array.from({ length: n }, (_, i) => ({ intent: `i${i}`, status: "open" as const }));
    expect(validateEndCall(end({ intentUpdates: updates(20) }), "reject").intents).toHaveLength(20);
    expect(issuesOf(end({ intentUpdates: updates(21) }))).toEqual([
      { path: ["intent_updates"], message: "Must have at most 20 entries" },
    ]);
  });

  test("several updates of one intent: the last one stands", () => {
    const command = validateEndCall(
      end({
        intentUpdates: [
          { intent: "billing", status: "open" },
          { intent: "address", status: "open" },
          { intent: "billing", status: "resolved", resolution: { type: "refund", externalReference: "R-1" } },
        ],
      }),
      "reject",
    );
    expect(command.intents).toEqual([
      { intent: "billing", status: "resolved", resolution: { type: "refund", externalReference: "R-1" } },
      { intent: "address", status: "open" },
    ]);
  });

  test("an intent update without intent or status names the element", () => {
    const issues = issuesOf(end({ intentUpdates: [{ intent: "ok", status: "open" }, { intent: "" }] }));
    expect(issues).toEqual([
      { path: ["intent_updates", "1", "intent"], message: "Required" },
      { path: ["intent_updates", "1", "status"], message: "Required" },
    ]);
  });

  test("a sensitive value is an issue at [variable_updates, NAME, value] under reject", () => {
    expect(paths(issuesOf(end({ variableUpdates: { ssn: { value: "123-45-6789" } } })))).toEqual([
      ["variable_updates", "ssn", "value"],
    ]);
  });

  test("a sensitive value is redacted under redact and keeps its source", () => {
    const command = validateEndCall(
      end({ variableUpdates: { ssn: { value: "123-45-6789", source: "agent" } } }),
      "redact",
    );
    expect(command.variables.get("ssn")).toEqual({
      value: "[REDACTED]",
      source: "agent",
      ttlSeconds: 2_592_000,
      requiresVerification: false,
    });
  });
});

describe("validateEndCall: forms", () => {
  test.each<[string, Partial<EndCallInput>]>([
    ["intent with variable_updates", { intent: "billing", variableUpdates: { plan: { value: "gold" } } }],
    [
      "variables with intent_updates",
      { variables: { plan: "gold" }, intentUpdates: [{ intent: "b", status: "open" }] },
    ],
    ["intent_status with intent_updates", { intentStatus: "open", intentUpdates: [{ intent: "b", status: "open" }] }],
  ])("simple and advanced forms together are an issue (%s)", (_, extra) => {
    expect(issuesOf(end(extra))).toContainEqual({
      path: [],
      message: "Use either intent/intent_status/variables or intent_updates/variable_updates, not both",
    });
  });

  test("an end with neither form saves nothing", () => {
    const command = validateEndCall(end({}), "reject");
    expect(command.intents).toEqual([]);
    expect(command.variables.size).toBe(0);
  });
});

describe("validateEndCall: summary", () => {
  test("4,000 characters are kept, 4,001 are too long", () => {
    expect(validateEndCall(end({ summary: "s".repeat(4000) }), "reject").summary).toHaveLength(4000);
    expect(issuesOf(end({ summary: "s".repeat(4001) }))).toEqual([
      { path: ["summary"], message: "Must be at most 4000 characters" },
    ]);
  });

  test("a blank summary is no summary", () => {
    expect(validateEndCall(end({ summary: "  " }), "reject")).not.toHaveProperty("summary");
  });

  test("a card number is refused under reject and the whole summary redacted under redact", () => {
    expect(paths(issuesOf(end({ summary: `Paid with ${CARD}` })))).toEqual([["summary"]]);
    expect(validateEndCall(end({ summary: `Paid with ${CARD}` }), "redact").summary).toBe("[REDACTED]");
  });

  test("requires_verification is carried by the advanced form and false in the simple one", () => {
    const advanced = validateEndCall(
      end({ variableUpdates: { home: { value: "x", requiresVerification: true }, plan: { value: "gold" } } }),
      "reject",
    );
    expect(advanced.variables.get("home")?.requiresVerification).toBe(true);
    expect(advanced.variables.get("plan")?.requiresVerification).toBe(false);
    const simple = validateEndCall(end({ variables: { plan: "gold" } }), "reject");
    expect(simple.variables.get("plan")?.requiresVerification).toBe(false);
  });
});
