import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { fingerprintEndCall } from "../../src/domain/idempotency.ts";
import { scoreIdentity, verifiedIdentity } from "../../src/domain/identity-score.ts";
import { validateEndCall } from "../../src/domain/validate-end.ts";
import { isVerifiedCaller } from "../../src/domain/verified-caller.ts";

const signals = { externalId: false, customerRef: false, recentCall: false, openIntent: false, dnis: false };

describe("isVerifiedCaller", () => {
  test("a number, an external id, or both at 0.9, are no proof", () => {
    expect(isVerifiedCaller(scoreIdentity({ ...signals, ani: "mobile", recentCall: true }))).toBe(false);
    const both = scoreIdentity({ ...signals, ani: "mobile", externalId: true, recentCall: true });
    expect(both.confidence).toBe(0.9);
    expect(isVerifiedCaller(both)).toBe(false);
  });

  test("the customer_ref the client sent, or identify with verified, are", () => {
    expect(isVerifiedCaller(scoreIdentity({ ...signals, customerRef: true }))).toBe(true);
    expect(isVerifiedCaller(verifiedIdentity(undefined))).toBe(true);
    expect(isVerifiedCaller(verifiedIdentity(scoreIdentity({ ...signals, ani: "landline" })))).toBe(true);
  });
});

describe("the end's fingerprint", () => {
  const base = { callId: "c-1", customerRef: "r", variables: {}, intentUpdates: [], variableUpdates: {} };
  const print = (extra: object) => fingerprintEndCall(validateEndCall({ ...base, ...extra }, "reject"));

  test("an end without a summary or a flag keeps the fingerprint it had before they existed", () => {
    // The canonical form as it was written before: a key claimed then still matches its retry after an upgrade.
    const before = {
      call_id: "c-1",
      customer_ref: "r",
      identity_hints: null,
      intents: [],
      variables: [["plan", ["gold", null, 2592000]]],
    };
    expect(print({ variableUpdates: { plan: { value: "gold" } } })).toBe(
      createHash("sha256").update(JSON.stringify(before)).digest("hex"),
    );
  });

  test("a summary or a flag makes another request", () => {
    const plain = print({ variableUpdates: { plan: { value: "gold" } } });
    expect(print({ variableUpdates: { plan: { value: "gold" } }, summary: "s" })).not.toBe(plain);
    expect(print({ variableUpdates: { plan: { value: "gold", requiresVerification: true } } })).not.toBe(plain);
  });
});
