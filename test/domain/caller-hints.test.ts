import { describe, expect, test } from "vitest";
import type { IdentityHintsInput } from "../../src/domain/call.ts";
import { normalizeHints } from "../../src/domain/caller-hints.ts";

const REF = "0b7f2c1e-4d5a-4e6b-9c8d-1a2b3c4d5e6f";
const hints = (extra: Partial<IdentityHintsInput>): IdentityHintsInput => ({ externalIds: {}, ...extra });

describe("normalizeHints", () => {
  test("no hints give nothing to look up", () => {
    expect(normalizeHints(undefined, "mobile", "US")).toEqual({ externalIds: [] });
  });

  test("without telco line type the ani kind is unknown", () => {
    const normalized = normalizeHints(hints({ ani: "+14155550123" }), undefined, "US");
    expect(normalized.aniKey).toBe("+14155550123");
    expect(normalized.aniKind).toBe("unknown");
  });

  test.each(["mobile", "landline", "voip", "unknown"] as const)(
    "telco line type %s becomes the ani kind",
    (lineType) => {
      expect(normalizeHints(hints({ ani: "+14155550123" }), lineType, "US").aniKind).toBe(lineType);
    },
  );

  test.each([undefined, "mobile", "landline", "voip", "unknown"] as const)(
    "a toll-free number is toll_free whatever the line type (%s)",
    (lineType) => {
      expect(normalizeHints(hints({ ani: "+18005551234" }), lineType, "US").aniKind).toBe("toll_free");
    },
  );

  test("without ani there is no ani key or kind, even with a line type", () => {
    const normalized = normalizeHints(hints({ externalIds: { crm: "C-1" } }), "mobile", "US");
    expect(normalized.aniKey).toBeUndefined();
    expect(normalized.aniKind).toBeUndefined();
  });

  test("ani and dnis are reduced to one key each", () => {
    const normalized = normalizeHints(hints({ ani: "(415) 555-0123", dnis: "18005551234" }), "mobile", "US");
    expect(normalized.aniKey).toBe("+14155550123");
    expect(normalized.dnisKey).toBe("+18005551234");
  });

  test("external ids become (key, value) pairs", () => {
    const normalized = normalizeHints(hints({ externalIds: { crm: "C-1", account: "A-9" } }), undefined, "US");
    expect(normalized.externalIds).toEqual([
      ["crm", "C-1"],
      ["account", "A-9"],
    ]);
  });

  test("a UUID customer_ref is kept, lower-cased", () => {
    expect(normalizeHints(hints({ customerRef: REF.toUpperCase() }), undefined, "US").customerRef).toBe(REF);
  });

  test.each(["cust_123", "not-a-uuid", `${REF}0`, ""])("non-UUID customer_ref %j is dropped", (customerRef) => {
    expect(normalizeHints(hints({ customerRef }), undefined, "US").customerRef).toBeUndefined();
  });
});
