// STIR/SHAKEN: how far the carriers vouch for the caller's number. The
// values are the API's own; docs/identity.md says what each does to the score.

/**
 * `A`, `B`, `C`: the originating carrier's attestation, verified on the way in (A: the carrier knows the
 * caller and that the caller may use the number; B: it knows the caller, not the number; C: it only saw the
 * call enter its network). `failed`: the signature did not verify, so the number may be forged. `none`: no
 * attestation came with the call (no PASSporT, or one nobody could read).
 */
export type Attestation = "A" | "B" | "C" | "failed" | "none";

/** From the least to the most trusting; the order the score respects. */
export const ATTESTATIONS_BY_TRUST: readonly Attestation[] = ["failed", "C", "none", "B", "A"];

export function isAttestation(value: string): value is Attestation {
  return (ATTESTATIONS_BY_TRUST as readonly string[]).includes(value);
}

/** The one that vouches less; either, when only one is known. */
export function lessTrusting(a: Attestation | undefined, b: Attestation | undefined): Attestation | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return ATTESTATIONS_BY_TRUST.indexOf(a) <= ATTESTATIONS_BY_TRUST.indexOf(b) ? a : b;
}
