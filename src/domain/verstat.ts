import type { Attestation } from "./attestation.ts";

// The platforms' ways of saying what their STIR/SHAKEN check found, read
// into the API's attestation. One reader for every form, so a client may pass
// on whatever its platform gave, as received:
//
// - Twilio `StirVerstat` (and the SIP header X-Twilio-VerStat): `TN-Validation-Passed-A|B|C`,
//   `TN-Validation-Failed-A|B|C`, `TN-Validation-Failed`, `No-TN-Validation`, `NULL` (Twilio: unable to
//   verify, no level), each Passed/Failed form also with `-Diverted` or `-Passthrough`.
// - Telnyx `verstat` (in the P-Asserted-Identity SIP header): `TN-Validation-Passed` (Telnyx: A-level),
//   `TN-Validation-Passed-B|C`, `TN-Validation-Failed`, `No-TN-Validation`; the whole header value is read
//   too (`<sip:+1…@sip.telnyx.com;verstat=TN-Validation-Passed>`).
// - Telnyx `ShakenStirAttestation` / `shaken_stir_attestation` and Bandwidth `attestationIndicator`: `A`,
//   `B`, `C`. Bandwidth's own `verstat` (`TN-Validation-Passed|Failed`, formerly `TN-Verification-…`) has no
//   level: send it with the level as `attestation`, and the lower of the two counts.
// - Plivo `X-Plivo-Stir-Verification`: `Verified` (A), `Not Verified` (B, C, unsigned or failed: Plivo
//   does not say which, so read as C, the number not vouched for), `Not Applicable` (outside the US: none).
//
// Case and surrounding spaces do not matter. Anything else is undefined: a form this service does not know.

const TN_VALIDATION = /^tn-(?:validation|verification)-(passed|failed)(?:-([abc]))?(?:-(?:diverted|passthrough))?$/;
const LEVELS: ReadonlyMap<string, Attestation> = new Map<string, Attestation>([
  ["a", "A"],
  ["b", "B"],
  ["c", "C"],
]);
const WORDS: ReadonlyMap<string, Attestation> = new Map<string, Attestation>([
  ["no-tn-validation", "none"],
  ["null", "failed"],
  ["verified", "A"],
  ["not verified", "C"],
  ["not applicable", "none"],
]);

export function readVerstat(received: string): Attestation | undefined {
  const text = verstatParameter(received.trim()).toLowerCase();
  const validation = TN_VALIDATION.exec(text);
  if (validation !== null) {
    const [, outcome, level] = validation;
    if (outcome === "failed") return "failed";
    // Passed without a level is Telnyx's A; Bandwidth's level comes apart, as `attestation`.
    return LEVELS.get(level ?? "a");
  }
  return LEVELS.get(text) ?? WORDS.get(text.replace(/\s+/g, " "));
}

/**
 * A platform's separate level and check result (Telnyx Call Control's `shaken_stir_attestation` and
 * `shaken_stir_validated`): a check that failed is `failed` whatever the level; undefined when neither says
 * anything this service reads.
 */
export function readLevel(level: string | undefined, validated: boolean | undefined): Attestation | undefined {
  if (validated === false) return "failed";
  return level === undefined ? undefined : LEVELS.get(level.trim().toLowerCase());
}

/** The value of a `verstat=` parameter when given a whole SIP header value, else the text itself. */
function verstatParameter(text: string): string {
  const parameter = /(?:^|[;?])verstat=([^;>&\s]+)/i.exec(text);
  return parameter === null ? text : parameter[1];
}
