import { describe, expect, test } from "vitest";
import type { StartCallInput } from "../../src/domain/call.ts";
import { DomainError, type FieldIssue } from "../../src/domain/domain-error.ts";
import { validateStartCall } from "../../src/domain/validate-start.ts";

const valid: StartCallInput = { callId: "call-1", identityHints: { ani: "+14155550123", externalIds: {} } };

function issuesOf(input: StartCallInput, earlier: FieldIssue[] = []): readonly FieldIssue[] {
  try {
    validateStartCall(input, earlier);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("invalid_argument");
    expect((error as DomainError).message).toBe("Validation failed");
    return (error as DomainError).issues;
  }
  throw new Error("expected validateStartCall to throw");
}

describe("validateStartCall", () => {
  test("returns a valid input unchanged", () => {
    expect(validateStartCall(valid)).toBe(valid);
  });

  test.each([
    ["ani", { ani: "+14155550123", externalIds: {} }],
    ["external_ids", { externalIds: { crm: "C-1" } }],
    ["customer_ref", { customerRef: "0b7f2c1e-4d5a-4e6b-9c8d-1a2b3c4d5e6f", externalIds: {} }],
  ])("identity_hints with only %s is enough", (_, identityHints) => {
    expect(() => validateStartCall({ callId: "c", identityHints })).not.toThrow();
  });

  test("a missing call_id is Required at [call_id]", () => {
    expect(issuesOf({ ...valid, callId: "" })).toEqual([{ path: ["call_id"], message: "Required" }]);
    expect(issuesOf({ ...valid, callId: undefined as unknown as string })).toEqual([
      { path: ["call_id"], message: "Required" },
    ]);
  });

  test("call_id of 128 characters passes, 129 is too long", () => {
    expect(() => validateStartCall({ ...valid, callId: "c".repeat(128) })).not.toThrow();
    expect(issuesOf({ ...valid, callId: "c".repeat(129) })).toEqual([
      { path: ["call_id"], message: "Must be at most 128 characters" },
    ]);
  });

  test.each([
    ["missing", undefined],
    ["with only dnis", { dnis: "+18005551234", externalIds: {} }],
    ["with empty external_ids", { externalIds: {} }],
  ])("identity_hints %s gives an issue at [identity_hints]", (_, identityHints) => {
    const issues = issuesOf({ callId: "c", identityHints });
    expect(issues).toContainEqual({
      path: ["identity_hints"],
      message: "Must contain at least one of ani, external_ids, customer_ref",
    });
  });

  test("every problem is listed at once", () => {
    const issues = issuesOf({ callId: "", identityHints: undefined });
    expect(issues.map((issue) => issue.path)).toEqual([["call_id"], ["identity_hints"]]);
  });

  test("field checks of the hints name the offending field", () => {
    const issues = issuesOf({
      callId: "c",
      identityHints: { ani: "1".repeat(65), externalIds: { crm: "" } },
    });
    expect(issues).toContainEqual({ path: ["identity_hints", "ani"], message: "Must be at most 64 characters" });
    expect(issues).toContainEqual({ path: ["identity_hints", "external_ids", "crm"], message: "Must not be empty" });
  });

  test("issues found while decoding come first and shadow a second issue for the same field", () => {
    const decoded = { path: ["call_id"], message: "Expected string" };
    expect(issuesOf({ ...valid, callId: "" }, [decoded])).toEqual([decoded]);
  });
});
