import { describe, expect, test } from "vitest";
import { customerRefOf, identifierOf } from "../../src/domain/customer.ts";
import { DomainError } from "../../src/domain/domain-error.ts";

const issuesOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return error.issues.map((issue) => issue.path.join("."));
  }
  return undefined;
};

describe("identifierOf", () => {
  test("reads a number as start does, so any spelling finds it", () => {
    expect(identifierOf({ ani: "14155550123" }, "US")).toEqual({ kind: "ani", namespace: "", value: "+14155550123" });
  });

  test("splits an external id at the first colon: the value may hold colons", () => {
    expect(identifierOf({ externalId: "crm:A:1" }, "US")).toEqual({
      kind: "external_id",
      namespace: "crm",
      value: "A:1",
    });
  });

  test("refuses none, both, a missing key or value, and text the store cannot hold", () => {
    expect(issuesOf(() => identifierOf({}, "US"))).toEqual([""]);
    expect(issuesOf(() => identifierOf({ ani: "1", externalId: "a:b" }, "US"))).toEqual([""]);
    expect(issuesOf(() => identifierOf({ externalId: ":b" }, "US"))).toEqual(["external_id"]);
    expect(issuesOf(() => identifierOf({ externalId: "a:" }, "US"))).toEqual(["external_id"]);
    expect(issuesOf(() => identifierOf({ ani: "1\u0000" }, "US"))).toEqual(["ani"]);
  });
});

describe("customerRefOf", () => {
  test("lower-cases a UUID and answers anything else with not_found", () => {
    expect(customerRefOf("0A6D7E1C-25B8-4D36-9D9B-3C1F2E4A5B6C")).toBe("0a6d7e1c-25b8-4d36-9d9b-3c1f2e4a5b6c");
    expect(() => customerRefOf("cus_123")).toThrow(expect.objectContaining({ code: "not_found" }));
  });
});
