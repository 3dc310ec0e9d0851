import { describe, expect, test } from "vitest";
import { DomainError } from "../../src/domain/domain-error.ts";
import { refuseOffendingFields } from "../../src/domain/offending-fields.ts";

// The decode issues and the rules' issues of one request, merged into the one 400 that names every offending field.

function refused(rules: { path: string[]; message: string }[], decoded: { path: string[]; message: string }[]) {
  try {
    refuseOffendingFields(rules, decoded);
  } catch (error) {
    if (error instanceof DomainError) return error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw error;
  }
  return undefined;
}

describe("refuseOffendingFields", () => {
  test("no issue at all refuses nothing", () => {
    expect(refused([], [])).toBeUndefined();
  });

  test("the decode issues come first, then the rules' issues", () => {
    expect(
      refused([{ path: ["tier"], message: "Expected one of" }], [{ path: ["colour"], message: "Unknown field" }]),
    ).toEqual(["colour: Unknown field", "tier: Expected one of"]);
  });

  test("a field named as undecodable is not named again by a rule, nor is the object holding it", () => {
    const decoded = [
      { path: ["quota"], message: "Expected a non-negative integer" },
      { path: ["end_of_call", "intent_field"], message: "Expected a string" },
    ];
    const rules = [
      { path: ["quota"], message: "Required" },
      { path: ["end_of_call"], message: "Must name a field" },
      { path: ["name"], message: "Required" },
    ];
    expect(refused(rules, decoded)).toEqual([
      "quota: Expected a non-negative integer",
      "end_of_call.intent_field: Expected a string",
      "name: Required",
    ]);
  });

  test("a body that could not be read at all is named alone", () => {
    expect(refused([{ path: ["name"], message: "Required" }], [{ path: [], message: "Malformed JSON" }])).toEqual([
      ": Malformed JSON",
    ]);
  });
});
