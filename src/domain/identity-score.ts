import type { Attestation } from "./attestation.ts";
import type { Identity, LineType } from "./call.ts";

// How sure are we that this caller is that customer? The boosts are the
// spec's; the way they combine is ours and is written up in docs/identity.md.

export type AniKind = LineType | "toll_free";

export interface MatchSignals {
  /** The caller's number belongs to this customer; the kind of line it is. */
  readonly ani?: AniKind;
  /**
   * What STIR/SHAKEN says of this call's number; read only with a matched `ani`. Absent: no attestation
   * data, and the spec's rule holds unchanged.
   */
  readonly attestation?: Attestation;
  readonly externalId: boolean;
  readonly customerRef: boolean;
  /** The customer's previous call started within the last 24 hours. */
  readonly recentCall: boolean;
  readonly openIntent: boolean;
  /** The customer has called this dialled number before. */
  readonly dnis: boolean;
}

export const ANI_BOOST: Readonly<Record<AniKind, number>> = {
  mobile: 0.5,
  landline: 0.3,
  voip: 0.2,
  toll_free: 0.05,
  unknown: 0,
};
export const EXTERNAL_ID_BOOST = 0.4;
export const RECENT_CALL_BOOST = 0.1;
export const OPEN_INTENT_BOOST = 0.1;
export const DNIS_BOOST = 0.05;

/**
 * A number linked to a customer is known: that customer called from it within the retention window (only
 * such customers are candidates), so the agent is at least asked to confirm who is calling. Line data is
 * rare (no voice platform sends it), and without this floor a caller ringing back after a day was a stranger.
 */
export const KNOWN_NUMBER_FLOOR = 0.3;
/** A repeat caller on the same number within a day lands higher in "confirm". */
export const REPEAT_CALLER_FLOOR = 0.4;
/**
 * An `A` attestation: the carrier vouches that the caller may use this number, so a number we know for the
 * customer is worth this much more (after the floors, so that it counts on a line of unknown kind too).
 */
export const ATTESTED_NUMBER_BOOST = 0.1;
/**
 * A number the carriers do not vouch for (`C`) or whose signature failed (`failed`) may be spoofed: without
 * an external id or a customer_ref, the score stays at most here, in "confirm".
 */
export const UNVOUCHED_NUMBER_CAP = 0.4;
/** Only a customer_ref the client itself holds may reach certainty. */
export const WITHOUT_CUSTOMER_REF_CAP = 0.9;

export const NO_MATCH: MatchSignals = {
  externalId: false,
  customerRef: false,
  recentCall: false,
  openIntent: false,
  dnis: false,
};

export function scoreIdentity(signals: MatchSignals): Identity {
  const sources: string[] = [];
  let sum = 0;
  if (signals.customerRef) sources.push("customer_ref");
  const attestation = signals.ani === undefined ? undefined : signals.attestation;
  if (signals.ani !== undefined) {
    sources.push(`ani:${signals.ani}`);
    if (attestation !== undefined) sources.push(`attestation:${attestation}`);
    // A signature that did not verify says the number may be forged: its kind of line proves nothing.
    sum += attestation === "failed" ? 0 : ANI_BOOST[signals.ani];
  }
  if (signals.externalId) {
    sources.push("external_id");
    sum += EXTERNAL_ID_BOOST;
  }
  // Recency, open intents and the dialled number only say something about a
  // customer that an identifier already matched.
  const matched = signals.customerRef || signals.ani !== undefined || signals.externalId;
  if (matched && signals.recentCall) {
    sources.push("recency:1day");
    sum += RECENT_CALL_BOOST;
  }
  if (matched && signals.openIntent) {
    sources.push("open_intent");
    sum += OPEN_INTENT_BOOST;
  }
  if (matched && signals.dnis) {
    sources.push("dnis");
    sum += DNIS_BOOST;
  }

  let confidence: number;
  if (signals.customerRef) {
    confidence = 1;
  } else {
    if (signals.ani !== undefined) sum = Math.max(sum, signals.recentCall ? REPEAT_CALLER_FLOOR : KNOWN_NUMBER_FLOOR);
    if (attestation === "A") sum += ATTESTED_NUMBER_BOOST;
    if ((attestation === "C" || attestation === "failed") && !signals.externalId) {
      sum = Math.min(sum, UNVOUCHED_NUMBER_CAP);
    }
    confidence = Math.min(sum, WITHOUT_CUSTOMER_REF_CAP);
  }
  // Boosts are hundredths and twentieths; rounding removes float noise (0.30000000000000004).
  confidence = Math.round(confidence * 1000) / 1000;
  return {
    confidence,
    level: levelFor(confidence),
    sources,
    recommendation: recommendationFor(confidence),
  };
}

export function levelFor(confidence: number): Identity["level"] {
  if (confidence >= 0.9) return "very_high";
  if (confidence >= 0.7) return "high";
  if (confidence >= 0.5) return "medium";
  return "low";
}

export function recommendationFor(confidence: number): Identity["recommendation"] {
  if (confidence >= 0.5) return "reuse";
  if (confidence >= 0.3) return "confirm";
  return "ignore";
}

/**
 * The client checked the caller's identity itself: certainty, whatever the
 * hints matched, which stay listed after "verified".
 */
export function verifiedIdentity(matched: Identity | undefined): Identity {
  const sources = ["verified", ...(matched?.sources ?? []).filter((source) => source !== "verified")];
  return { confidence: 1, level: "very_high", sources, recommendation: "reuse" };
}
