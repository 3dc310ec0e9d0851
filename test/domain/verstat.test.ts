import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ATTESTATIONS_BY_TRUST, type Attestation, lessTrusting } from "../../src/domain/attestation.ts";
import { readLevel, readVerstat } from "../../src/domain/verstat.ts";

// Every form the platforms document, read into the attestation src/domain/verstat.ts lists for it.

const FORMS: readonly (readonly [platform: string, received: string, attestation: Attestation])[] = [
  ["Twilio", "TN-Validation-Passed-A", "A"],
  ["Twilio", "TN-Validation-Passed-B", "B"],
  ["Twilio", "TN-Validation-Passed-C", "C"],
  ["Twilio", "TN-Validation-Failed-A", "failed"],
  ["Twilio", "TN-Validation-Failed-B", "failed"],
  ["Twilio", "TN-Validation-Failed-C", "failed"],
  ["Twilio", "TN-Validation-Failed", "failed"],
  ["Twilio", "No-TN-Validation", "none"],
  ["Twilio", "NULL", "failed"],
  ["Twilio", "TN-Validation-Passed-A-Diverted", "A"],
  ["Twilio", "TN-Validation-Passed-B-Passthrough", "B"],
  ["Twilio", "TN-Validation-Passed-C-Diverted", "C"],
  ["Twilio", "TN-Validation-Failed-A-Passthrough", "failed"],
  ["Telnyx verstat", "TN-Validation-Passed", "A"],
  ["Telnyx verstat", "TN-Validation-Passed-B", "B"],
  ["Telnyx verstat", "TN-Validation-Passed-C", "C"],
  ["Telnyx verstat", "TN-Validation-Failed", "failed"],
  ["Telnyx verstat", "No-TN-Validation", "none"],
  ["Telnyx P-Asserted-Identity", '"John Doe" <sip:+18889809750@sip.telnyx.com;verstat=TN-Validation-Passed>', "A"],
  ["Telnyx P-Asserted-Identity", "<sip:+18889809750@sip.telnyx.com;verstat=TN-Validation-Failed>", "failed"],
  ["Telnyx ShakenStirAttestation", "A", "A"],
  ["Telnyx ShakenStirAttestation", "B", "B"],
  ["Telnyx ShakenStirAttestation", "C", "C"],
  ["Bandwidth verstat", "Tn-Validation-Passed", "A"],
  ["Bandwidth verstat", "TN-Validation-Failed", "failed"],
  ["Bandwidth verstat (older)", "TN-Verification-Passed", "A"],
  ["Bandwidth verstat (older)", "TN-Verification-Failed", "failed"],
  ["Bandwidth attestationIndicator", "B", "B"],
  ["Plivo", "Verified", "A"],
  ["Plivo", "Not Verified", "C"],
  ["Plivo", "Not Applicable", "none"],
];

describe("readVerstat", () => {
  test.each(FORMS)("%s %j is %s", (_platform, received, attestation) => {
    expect(readVerstat(received)).toBe(attestation);
  });

  test("case and surrounding spaces do not matter", () => {
    for (const [, received, attestation] of FORMS) {
      expect(readVerstat(`  ${received.toLowerCase()} `)).toBe(attestation);
      expect(readVerstat(received.toUpperCase())).toBe(attestation);
    }
  });

  test.each([
    "",
    "D",
    "TN-Validation-Passed-D",
    "TN-Validation-Maybe",
    "Passed",
    "constructor",
    "__proto__",
    "TN-Validation-Passed-A-Forwarded",
  ])("%j is no form this service reads", (received) => {
    expect(readVerstat(received)).toBeUndefined();
  });

  test("any text gives an attestation or undefined, never anything else", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const read = readVerstat(text);
        expect(read === undefined || ATTESTATIONS_BY_TRUST.includes(read)).toBe(true);
      }),
    );
  });
});

describe("readLevel (Telnyx Call Control's attestation and check result)", () => {
  test.each([
    ["A", true, "A"],
    ["B", true, "B"],
    ["C", undefined, "C"],
    ["A", false, "failed"],
    [undefined, false, "failed"],
    [undefined, true, undefined],
    [undefined, undefined, undefined],
    ["Z", true, undefined],
  ] as const)("%s with validated %s is %s", (level, validated, attestation) => {
    expect(readLevel(level, validated)).toBe(attestation);
  });
});

describe("lessTrusting", () => {
  test("is the lower in the order failed < C < none < B < A, whichever comes first", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ATTESTATIONS_BY_TRUST), fc.constantFrom(...ATTESTATIONS_BY_TRUST), (a, b) => {
        const lower =
          ATTESTATIONS_BY_TRUST[Math.min(ATTESTATIONS_BY_TRUST.indexOf(a), ATTESTATIONS_BY_TRUST.indexOf(b))];
        expect(lessTrusting(a, b)).toBe(lower);
        expect(lessTrusting(b, a)).toBe(lower);
      }),
    );
  });

  test("with one side unknown it is the other", () => {
    expect(lessTrusting(undefined, "C")).toBe("C");
    expect(lessTrusting("A", undefined)).toBe("A");
    expect(lessTrusting(undefined, undefined)).toBeUndefined();
  });
});
