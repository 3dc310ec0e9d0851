import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ATTESTATIONS_BY_TRUST, type Attestation } from "../../src/domain/attestation.ts";
import type { Identity } from "../../src/domain/call.ts";
import {
  type AniKind,
  ATTESTED_NUMBER_BOOST,
  type MatchSignals,
  NO_MATCH,
  scoreIdentity,
} from "../../src/domain/identity-score.ts";

// The STIR/SHAKEN rule of docs/identity.md ("Caller-number attestation"): its
// table row by row, and its promises as properties over every combination.

interface Example {
  readonly signals: string;
  readonly input: MatchSignals;
  readonly confidence: number;
  readonly level: Identity["level"];
  readonly recommendation: Identity["recommendation"];
  readonly sources: readonly string[];
}

const on = (extra: Partial<MatchSignals>): MatchSignals => ({ ...NO_MATCH, ...extra });
const MOBILE_RECENT_OPEN = { ani: "mobile", recentCall: true, openIntent: true } as const;

const EXAMPLES: readonly Example[] = [
  row("mobile ANI, A", on({ ani: "mobile", attestation: "A" }), 0.6, "medium", "reuse", [
    "ani:mobile",
    "attestation:A",
  ]),
  row("unknown ANI, A", on({ ani: "unknown", attestation: "A" }), 0.4, "low", "confirm", [
    "ani:unknown",
    "attestation:A",
  ]),
  row(
    "unknown ANI + recent call, A",
    on({ ani: "unknown", recentCall: true, attestation: "A" }),
    0.5,
    "medium",
    "reuse",
    ["ani:unknown", "attestation:A", "recency:1day"],
  ),
  row(
    "mobile ANI + recent call + open intent, A",
    on({ ...MOBILE_RECENT_OPEN, attestation: "A" }),
    0.8,
    "high",
    "reuse",
    ["ani:mobile", "attestation:A", "recency:1day", "open_intent"],
  ),
  row(
    "mobile ANI + external id, A",
    on({ ani: "mobile", externalId: true, attestation: "A" }),
    0.9,
    "very_high",
    "reuse",
    ["ani:mobile", "attestation:A", "external_id"],
  ),
  row("mobile ANI, B", on({ ani: "mobile", attestation: "B" }), 0.5, "medium", "reuse", [
    "ani:mobile",
    "attestation:B",
  ]),
  row("mobile ANI, none", on({ ani: "mobile", attestation: "none" }), 0.5, "medium", "reuse", [
    "ani:mobile",
    "attestation:none",
  ]),
  row("mobile ANI + recent call + open intent (no attestation)", on(MOBILE_RECENT_OPEN), 0.7, "high", "reuse", [
    "ani:mobile",
    "recency:1day",
    "open_intent",
  ]),
  row("mobile ANI, C", on({ ani: "mobile", attestation: "C" }), 0.4, "low", "confirm", ["ani:mobile", "attestation:C"]),
  row(
    "mobile ANI + recent call + open intent, C",
    on({ ...MOBILE_RECENT_OPEN, attestation: "C" }),
    0.4,
    "low",
    "confirm",
    ["ani:mobile", "attestation:C", "recency:1day", "open_intent"],
  ),
  row(
    "mobile ANI + external id, C",
    on({ ani: "mobile", externalId: true, attestation: "C" }),
    0.9,
    "very_high",
    "reuse",
    ["ani:mobile", "attestation:C", "external_id"],
  ),
  row("mobile ANI, failed", on({ ani: "mobile", attestation: "failed" }), 0.3, "low", "confirm", [
    "ani:mobile",
    "attestation:failed",
  ]),
  row(
    "mobile ANI + recent call + open intent, failed",
    on({ ...MOBILE_RECENT_OPEN, attestation: "failed" }),
    0.4,
    "low",
    "confirm",
    ["ani:mobile", "attestation:failed", "recency:1day", "open_intent"],
  ),
  row(
    "mobile ANI + external id, failed",
    on({ ani: "mobile", externalId: true, attestation: "failed" }),
    0.4,
    "low",
    "confirm",
    ["ani:mobile", "attestation:failed", "external_id"],
  ),
  row(
    "mobile ANI + external id + recent call, failed",
    on({ ani: "mobile", externalId: true, recentCall: true, attestation: "failed" }),
    0.5,
    "medium",
    "reuse",
    ["ani:mobile", "attestation:failed", "external_id", "recency:1day"],
  ),
  row(
    "customer_ref + mobile ANI, failed",
    on({ customerRef: true, ani: "mobile", attestation: "failed" }),
    1,
    "very_high",
    "reuse",
    ["customer_ref", "ani:mobile", "attestation:failed"],
  ),
  row("external id (number matched nobody), A", on({ externalId: true, attestation: "A" }), 0.4, "low", "confirm", [
    "external_id",
  ]),
];

function row(
  signals: string,
  input: MatchSignals,
  confidence: number,
  level: Identity["level"],
  recommendation: Identity["recommendation"],
  sources: readonly string[],
): Example {
  return { signals, input, confidence, level, recommendation, sources };
}

describe("scoreIdentity with an attestation: the table of docs/identity.md", () => {
  test.each(EXAMPLES)("$signals scores $confidence ($level, $recommendation)", (example) => {
    expect(scoreIdentity(example.input)).toEqual({
      confidence: example.confidence,
      level: example.level,
      sources: example.sources,
      recommendation: example.recommendation,
    });
  });

  test("the table in docs/identity.md lists exactly these rows", () => {
    expect(readDocumentedTable()).toEqual(
      EXAMPLES.map(({ signals, confidence, level, recommendation, sources }) => ({
        signals,
        confidence,
        level,
        recommendation,
        sources,
      })),
    );
  });
});

function readDocumentedTable() {
  const doc = readFileSync(new URL("../../docs/identity.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Caller-number attestation"), doc.indexOf("## Examples"));
  const table = section.slice(section.indexOf("| Signals and attestation |"));
  const lines = table.split("\n").filter((line) => line.startsWith("|"));
  return lines.slice(2).map((line) => {
    const [signals, confidence, level, recommendation, sources] = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim());
    return {
      signals,
      confidence: Number(confidence),
      level,
      recommendation,
      sources: sources.split(",").map((s) => s.trim().replaceAll("`", "")),
    };
  });
}

const ANI_KINDS: readonly AniKind[] = ["mobile", "landline", "voip", "toll_free", "unknown"];

/** Every combination of signals, with or without an attestation. */
const signalsArb: fc.Arbitrary<MatchSignals> = fc.record({
  ani: fc.option(fc.constantFrom(...ANI_KINDS), { nil: undefined }),
  attestation: fc.option(fc.constantFrom(...ATTESTATIONS_BY_TRUST), { nil: undefined }),
  externalId: fc.boolean(),
  customerRef: fc.boolean(),
  recentCall: fc.boolean(),
  openIntent: fc.boolean(),
  dnis: fc.boolean(),
});

const withAttestation = (signals: MatchSignals, attestation: Attestation | undefined): MatchSignals => ({
  ...signals,
  attestation,
});

describe("scoreIdentity with an attestation: properties", () => {
  test("confidence never decreases along failed ≤ C ≤ none = no data = B ≤ A, all else equal", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const score = (attestation: Attestation | undefined) =>
          scoreIdentity(withAttestation(signals, attestation)).confidence;
        const [failed, c, none, b, a] = ATTESTATIONS_BY_TRUST.map(score);
        expect(failed).toBeLessThanOrEqual(c);
        expect(c).toBeLessThanOrEqual(none);
        expect(none).toBe(score(undefined));
        expect(b).toBe(score(undefined));
        expect(b).toBeLessThanOrEqual(a);
      }),
    );
  });

  test("the confidence stays within [0, 1], with 3 decimals at most", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const { confidence } = scoreIdentity(signals);
        expect(confidence).toBeGreaterThanOrEqual(0);
        expect(confidence).toBeLessThanOrEqual(1);
        expect(Math.round(confidence * 1000) / 1000).toBe(confidence);
      }),
    );
  });

  test("without attestation data the score is the spec's rule: none and B change only the sources", () => {
    fc.assert(
      fc.property(signalsArb, fc.constantFrom<Attestation>("none", "B"), (signals, attestation) => {
        const plain = scoreIdentity(withAttestation(signals, undefined));
        const attested = scoreIdentity(withAttestation(signals, attestation));
        expect({ ...attested, sources: attested.sources.filter((s) => !s.startsWith("attestation:")) }).toEqual(plain);
      }),
    );
  });

  test("failed or C never lets the number alone reach reuse, and a known number still asks to confirm", () => {
    fc.assert(
      fc.property(
        signalsArb,
        fc.constantFrom(...ANI_KINDS),
        fc.constantFrom<Attestation>("failed", "C"),
        (signals, ani, attestation) => {
          const identity = scoreIdentity({ ...signals, ani, attestation, externalId: false, customerRef: false });
          expect(identity.recommendation).toBe("confirm");
        },
      ),
    );
  });

  test("A on a number linked to the customer adds the documented 0.1, up to the 0.9 cap", () => {
    fc.assert(
      fc.property(signalsArb, fc.constantFrom(...ANI_KINDS), (signals, ani) => {
        const base = { ...signals, ani, customerRef: false };
        const plain = scoreIdentity(withAttestation(base, undefined)).confidence;
        const attested = scoreIdentity(withAttestation(base, "A")).confidence;
        expect(attested).toBeCloseTo(Math.min(plain + ATTESTED_NUMBER_BOOST, 0.9), 10);
      }),
    );
  });

  test("an attestation without a matched number changes nothing, sources included", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const unmatched = { ...signals, ani: undefined };
        expect(scoreIdentity(unmatched)).toEqual(scoreIdentity(withAttestation(unmatched, undefined)));
      }),
    );
  });

  test("switching on one more signal never lowers the confidence, whatever the attestation", () => {
    const FLAGS = ["externalId", "customerRef", "recentCall", "openIntent", "dnis"] as const;
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const before = scoreIdentity(signals).confidence;
        const more: MatchSignals[] = FLAGS.filter((flag) => !signals[flag]).map((flag) => ({
          ...signals,
          [flag]: true,
        }));
        if (signals.ani === undefined) for (const ani of ANI_KINDS) more.push({ ...signals, ani });
        for (const next of more) expect(scoreIdentity(next).confidence).toBeGreaterThanOrEqual(before);
      }),
    );
  });

  test("a customer_ref match is 1.0 whatever the attestation", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        expect(scoreIdentity({ ...signals, customerRef: true }).confidence).toBe(1);
      }),
    );
  });

  test("sources carry the attestation right after the number's kind, only when the number matched", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const { sources } = scoreIdentity(signals);
        const attestations = sources.filter((s) => s.startsWith("attestation:"));
        if (signals.ani === undefined || signals.attestation === undefined) {
          expect(attestations).toEqual([]);
        } else {
          expect(attestations).toEqual([`attestation:${signals.attestation}`]);
          expect(sources[sources.indexOf(`ani:${signals.ani}`) + 1]).toBe(`attestation:${signals.attestation}`);
        }
      }),
    );
  });
});
