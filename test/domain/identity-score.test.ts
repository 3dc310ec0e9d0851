import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Identity } from "../../src/domain/call.ts";
import {
  type AniKind,
  levelFor,
  type MatchSignals,
  NO_MATCH,
  recommendationFor,
  scoreIdentity,
} from "../../src/domain/identity-score.ts";

// Mirrors the "Examples" table of docs/identity.md row by row; the last test
// in this block fails when the two drift apart.

interface Example {
  readonly signals: string;
  readonly input: MatchSignals;
  readonly confidence: number;
  readonly level: Identity["level"];
  readonly recommendation: Identity["recommendation"];
  readonly sources: readonly string[];
}

const on = (extra: Partial<MatchSignals>): MatchSignals => ({ ...NO_MATCH, ...extra });

const EXAMPLES: readonly Example[] = [
  row("new caller (no match)", NO_MATCH, 0, "low", "ignore", []),
  row(
    "recent call, open intent and DNIS without any identifier",
    on({ recentCall: true, openIntent: true, dnis: true }),
    0,
    "low",
    "ignore",
    [],
  ),
  row("mobile ANI", on({ ani: "mobile" }), 0.5, "medium", "reuse", ["ani:mobile"]),
  row("mobile ANI + recent call", on({ ani: "mobile", recentCall: true }), 0.6, "medium", "reuse", [
    "ani:mobile",
    "recency:1day",
  ]),
  row("mobile ANI + external id", on({ ani: "mobile", externalId: true }), 0.9, "very_high", "reuse", [
    "ani:mobile",
    "external_id",
  ]),
  row(
    "mobile ANI + external id + recent call",
    on({ ani: "mobile", externalId: true, recentCall: true }),
    0.9,
    "very_high",
    "reuse",
    ["ani:mobile", "external_id", "recency:1day"],
  ),
  row(
    "mobile ANI + external id + recent call + open intent + DNIS",
    on({ ani: "mobile", externalId: true, recentCall: true, openIntent: true, dnis: true }),
    0.9,
    "very_high",
    "reuse",
    ["ani:mobile", "external_id", "recency:1day", "open_intent", "dnis"],
  ),
  row(
    "mobile ANI + recent call + open intent + DNIS",
    on({ ani: "mobile", recentCall: true, openIntent: true, dnis: true }),
    0.75,
    "high",
    "reuse",
    ["ani:mobile", "recency:1day", "open_intent", "dnis"],
  ),
  row("landline ANI", on({ ani: "landline" }), 0.3, "low", "confirm", ["ani:landline"]),
  row("landline ANI + recent call", on({ ani: "landline", recentCall: true }), 0.4, "low", "confirm", [
    "ani:landline",
    "recency:1day",
  ]),
  row("landline ANI + external id", on({ ani: "landline", externalId: true }), 0.7, "high", "reuse", [
    "ani:landline",
    "external_id",
  ]),
  row("VoIP ANI", on({ ani: "voip" }), 0.3, "low", "confirm", ["ani:voip"]),
  row("VoIP ANI + recent call", on({ ani: "voip", recentCall: true }), 0.4, "low", "confirm", [
    "ani:voip",
    "recency:1day",
  ]),
  row("toll-free ANI", on({ ani: "toll_free" }), 0.3, "low", "confirm", ["ani:toll_free"]),
  row("toll-free ANI + recent call", on({ ani: "toll_free", recentCall: true }), 0.4, "low", "confirm", [
    "ani:toll_free",
    "recency:1day",
  ]),
  row("unknown ANI", on({ ani: "unknown" }), 0.3, "low", "confirm", ["ani:unknown"]),
  row("unknown ANI + recent call", on({ ani: "unknown", recentCall: true }), 0.4, "low", "confirm", [
    "ani:unknown",
    "recency:1day",
  ]),
  row("unknown ANI + DNIS", on({ ani: "unknown", dnis: true }), 0.3, "low", "confirm", ["ani:unknown", "dnis"]),
  row("unknown ANI + open intent", on({ ani: "unknown", openIntent: true }), 0.3, "low", "confirm", [
    "ani:unknown",
    "open_intent",
  ]),
  row("external id", on({ externalId: true }), 0.4, "low", "confirm", ["external_id"]),
  row("external id + recent call", on({ externalId: true, recentCall: true }), 0.5, "medium", "reuse", [
    "external_id",
    "recency:1day",
  ]),
  row(
    "external id + recent call + open intent",
    on({ externalId: true, recentCall: true, openIntent: true }),
    0.6,
    "medium",
    "reuse",
    ["external_id", "recency:1day", "open_intent"],
  ),
  row("customer_ref", on({ customerRef: true }), 1, "very_high", "reuse", ["customer_ref"]),
  row(
    "customer_ref + mobile ANI + recent call",
    on({ customerRef: true, ani: "mobile", recentCall: true }),
    1,
    "very_high",
    "reuse",
    ["customer_ref", "ani:mobile", "recency:1day"],
  ),
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

describe("scoreIdentity: the examples of docs/identity.md", () => {
  test.each(EXAMPLES)("$signals scores $confidence ($level, $recommendation)", (example) => {
    expect(scoreIdentity(example.input)).toEqual({
      confidence: example.confidence,
      level: example.level,
      sources: example.sources,
      recommendation: example.recommendation,
    });
  });

  test("the docs/identity.md example table lists exactly these rows", () => {
    const documented = readDocumentedExamples();
    expect(documented).toEqual(
      EXAMPLES.map((e) => ({
        signals: e.signals,
        confidence: e.confidence,
        level: e.level,
        recommendation: e.recommendation,
        sources: e.sources,
      })),
    );
  });
});

function readDocumentedExamples() {
  const doc = readFileSync(new URL("../../docs/identity.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Examples"));
  const lines = section.split("\n").filter((line) => line.startsWith("|"));
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
      sources: sources === "(none)" ? [] : sources.split(",").map((s) => s.trim().replaceAll("`", "")),
    };
  });
}

describe("scoreIdentity: the values the spec states", () => {
  test("mobile ANI with an external id scores 0.9", () => {
    expect(scoreIdentity(on({ ani: "mobile", externalId: true })).confidence).toBe(0.9);
  });
  test("mobile ANI with an external id and a recent call scores 0.9", () => {
    expect(scoreIdentity(on({ ani: "mobile", externalId: true, recentCall: true })).confidence).toBe(0.9);
  });
  test("unknown-line ANI with a recent call scores 0.4", () => {
    expect(scoreIdentity(on({ ani: "unknown", recentCall: true })).confidence).toBe(0.4);
  });
  test("landline ANI with a recent call scores 0.4", () => {
    expect(scoreIdentity(on({ ani: "landline", recentCall: true })).confidence).toBe(0.4);
  });
  test("a new caller scores 0, low, ignore, with no sources", () => {
    expect(scoreIdentity(NO_MATCH)).toEqual({ confidence: 0, level: "low", sources: [], recommendation: "ignore" });
  });
  test("a known number of any line kind is at least confirm, whatever else is missing", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        if (signals.ani === undefined) return;
        expect(scoreIdentity(signals).recommendation).not.toBe("ignore");
      }),
    );
  });
  test("a customer_ref match alone scores 1.0", () => {
    expect(scoreIdentity(on({ customerRef: true })).confidence).toBe(1);
  });
});

const ANI_KINDS: readonly AniKind[] = ["mobile", "landline", "voip", "toll_free", "unknown"];
const FLAGS = ["externalId", "customerRef", "recentCall", "openIntent", "dnis"] as const;

const signalsArb: fc.Arbitrary<MatchSignals> = fc.record({
  ani: fc.option(fc.constantFrom(...ANI_KINDS), { nil: undefined }),
  externalId: fc.boolean(),
  customerRef: fc.boolean(),
  recentCall: fc.boolean(),
  openIntent: fc.boolean(),
  dnis: fc.boolean(),
});

/** Every way of switching on exactly one more signal, leaving the rest as they are. */
function oneMoreSignal(signals: MatchSignals): MatchSignals[] {
  const more: MatchSignals[] = [];
  for (const flag of FLAGS) if (!signals[flag]) more.push({ ...signals, [flag]: true });
  if (signals.ani === undefined) for (const ani of ANI_KINDS) more.push({ ...signals, ani });
  return more;
}

describe("scoreIdentity: properties", () => {
  test("the confidence is always between 0 and 1", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const { confidence } = scoreIdentity(signals);
        expect(confidence).toBeGreaterThanOrEqual(0);
        expect(confidence).toBeLessThanOrEqual(1);
      }),
    );
  });

  test("switching on one more signal never lowers the confidence", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const before = scoreIdentity(signals).confidence;
        for (const more of oneMoreSignal(signals)) {
          expect(scoreIdentity(more).confidence).toBeGreaterThanOrEqual(before);
        }
      }),
    );
  });

  test("without a customer_ref match the confidence never exceeds 0.9; with one it is 1", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const { confidence } = scoreIdentity(signals);
        if (signals.customerRef) expect(confidence).toBe(1);
        else expect(confidence).toBeLessThanOrEqual(0.9);
      }),
    );
  });

  test("level and recommendation follow the spec thresholds for every combination", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const identity = scoreIdentity(signals);
        expect(identity.level).toBe(specLevel(identity.confidence));
        expect(identity.recommendation).toBe(specRecommendation(identity.confidence));
      }),
    );
  });

  test("context signals add no source and no score until an identifier matched", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (recentCall, openIntent, dnis) => {
        expect(scoreIdentity(on({ recentCall, openIntent, dnis }))).toEqual(scoreIdentity(NO_MATCH));
      }),
    );
  });

  test("sources name exactly the signals present, in the documented order", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const matched = signals.customerRef || signals.ani !== undefined || signals.externalId;
        const expected = [
          signals.customerRef && "customer_ref",
          signals.ani !== undefined && `ani:${signals.ani}`,
          signals.externalId && "external_id",
          matched && signals.recentCall && "recency:1day",
          matched && signals.openIntent && "open_intent",
          matched && signals.dnis && "dnis",
        ].filter((s) => typeof s === "string");
        expect(scoreIdentity(signals).sources).toEqual(expected);
      }),
    );
  });

  test("a matched ANI with a call in the last day scores at least 0.4", () => {
    fc.assert(
      fc.property(signalsArb, fc.constantFrom(...ANI_KINDS), (signals, ani) => {
        expect(scoreIdentity({ ...signals, ani, recentCall: true }).confidence).toBeGreaterThanOrEqual(0.4);
      }),
    );
  });

  test("the confidence has at most 3 decimals", () => {
    fc.assert(
      fc.property(signalsArb, (signals) => {
        const { confidence } = scoreIdentity(signals);
        expect(Math.round(confidence * 1000) / 1000).toBe(confidence);
      }),
    );
  });
});

function specLevel(confidence: number): Identity["level"] {
  if (confidence >= 0.9) return "very_high";
  if (confidence >= 0.7) return "high";
  if (confidence >= 0.5) return "medium";
  return "low";
}

function specRecommendation(confidence: number): Identity["recommendation"] {
  if (confidence >= 0.5) return "reuse";
  if (confidence >= 0.3) return "confirm";
  return "ignore";
}

describe("levelFor and recommendationFor", () => {
  test.each([
    [0, "low", "ignore"],
    [0.299, "low", "ignore"],
    [0.3, "low", "confirm"],
    [0.499, "low", "confirm"],
    [0.5, "medium", "reuse"],
    [0.699, "medium", "reuse"],
    [0.7, "high", "reuse"],
    [0.899, "high", "reuse"],
    [0.9, "very_high", "reuse"],
    [1, "very_high", "reuse"],
  ] as const)("confidence %s is %s and %s", (confidence, level, recommendation) => {
    expect(levelFor(confidence)).toBe(level);
    expect(recommendationFor(confidence)).toBe(recommendation);
  });

  test("agree with the spec thresholds for any confidence in [0, 1]", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (confidence) => {
        expect(levelFor(confidence)).toBe(specLevel(confidence));
        expect(recommendationFor(confidence)).toBe(specRecommendation(confidence));
      }),
    );
  });
});
