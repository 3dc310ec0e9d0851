import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type Candidate, chooseCandidate, isRecent } from "../../src/domain/identity-match.ts";
import { type MatchSignals, NO_MATCH, scoreIdentity } from "../../src/domain/identity-score.ts";

const MOBILE: MatchSignals = { ...NO_MATCH, ani: "mobile" }; // 0.5
const EXTERNAL: MatchSignals = { ...NO_MATCH, externalId: true }; // 0.4
const LANDLINE_EXTERNAL: MatchSignals = { ...NO_MATCH, ani: "landline", externalId: true }; // 0.7

const at = (iso: string) => new Date(iso);
const candidate = (customerId: string, signals: MatchSignals, lastCallAt: string): Candidate => ({
  customerId,
  signals,
  lastCallAt: at(lastCallAt),
});

describe("chooseCandidate", () => {
  test("no candidates gives no match", () => {
    expect(chooseCandidate([])).toBeUndefined();
  });

  test("a single candidate is chosen with its own score", () => {
    expect(chooseCandidate([candidate("b", MOBILE, "2025-01-01T00:00:00Z")])).toEqual({
      customerId: "b",
      identity: scoreIdentity(MOBILE),
    });
  });

  test("the highest score wins even against a more recent caller and a smaller id", () => {
    const match = chooseCandidate([
      candidate("a", EXTERNAL, "2025-01-02T00:00:00Z"),
      candidate("z", LANDLINE_EXTERNAL, "2024-06-01T00:00:00Z"),
      candidate("b", MOBILE, "2025-01-03T00:00:00Z"),
    ]);
    expect(match?.customerId).toBe("z");
    expect(match?.identity.confidence).toBe(0.7);
  });

  test("on equal scores the most recent last call wins over a smaller id", () => {
    const match = chooseCandidate([
      candidate("a", MOBILE, "2025-01-01T00:00:00Z"),
      candidate("m", MOBILE, "2025-01-01T00:00:00.001Z"),
      candidate("b", MOBILE, "2024-12-31T00:00:00Z"),
    ]);
    expect(match?.customerId).toBe("m");
  });

  test("on equal scores and equal last calls the smaller id wins", () => {
    const match = chooseCandidate([
      candidate("c", MOBILE, "2025-01-01T00:00:00Z"),
      candidate("a", MOBILE, "2025-01-01T00:00:00Z"),
      candidate("b", MOBILE, "2025-01-01T00:00:00Z"),
    ]);
    expect(match?.customerId).toBe("a");
  });

  test("the choice does not depend on the order of the candidates", () => {
    const signalsArb = fc.constantFrom(NO_MATCH, MOBILE, EXTERNAL, LANDLINE_EXTERNAL);
    const candidatesArb = fc.uniqueArray(
      fc.record({
        customerId: fc.string({ minLength: 1, maxLength: 3 }),
        signals: signalsArb,
        lastCallAt: fc.integer({ min: 0, max: 5 }).map((day) => new Date(Date.UTC(2025, 0, 1 + day))),
      }),
      { minLength: 1, maxLength: 8, selector: (c) => c.customerId },
    );
    fc.assert(
      fc.property(candidatesArb, (candidates) => {
        const forward = chooseCandidate(candidates);
        const backward = chooseCandidate([...candidates].reverse());
        expect(backward).toEqual(forward);
        // The chosen one is at least as good as every other candidate.
        const chosen = candidates.find((c) => c.customerId === forward?.customerId)!;
        for (const other of candidates) {
          const diff = scoreIdentity(other.signals).confidence - forward!.identity.confidence;
          expect(diff).toBeLessThanOrEqual(0);
          if (diff === 0) expect(other.lastCallAt.getTime()).toBeLessThanOrEqual(chosen.lastCallAt.getTime());
        }
      }),
    );
  });
});

describe("isRecent", () => {
  const now = at("2025-01-02T12:00:00Z");
  test("a call exactly 24 hours ago is recent", () => {
    expect(isRecent(at("2025-01-01T12:00:00Z"), now)).toBe(true);
  });
  test("a call 24 hours and 1 ms ago is not recent", () => {
    expect(isRecent(at("2025-01-01T11:59:59.999Z"), now)).toBe(false);
  });
});
