import type { Attestation } from "./attestation.ts";
import type { IdentityHintsInput, LineType } from "./call.ts";
import { isCustomerRef } from "./customer-ref.ts";
import type { AniKind } from "./identity-score.ts";
import { normalizePhoneNumber } from "./phone-number.ts";

// Identity hints as the store looks them up: numbers reduced to one key each,
// external ids as (key, value) pairs, customer_ref only when it can name one.

export interface NormalizedHints {
  readonly aniKey?: string;
  readonly aniKind?: AniKind;
  /** What STIR/SHAKEN says of the number this call came from; only with an ani. */
  readonly aniAttestation?: Attestation;
  readonly dnisKey?: string;
  readonly externalIds: readonly (readonly [string, string])[];
  readonly customerRef?: string;
}

export function normalizeHints(
  hints: IdentityHintsInput | undefined,
  lineType: LineType | undefined,
  defaultRegion: string,
  attestation?: Attestation,
): NormalizedHints {
  if (hints === undefined) return { externalIds: [] };
  const ani = hints.ani ? normalizePhoneNumber(hints.ani, defaultRegion) : undefined;
  const dnis = hints.dnis ? normalizePhoneNumber(hints.dnis, defaultRegion) : undefined;
  return {
    aniKey: ani?.key,
    // Without telco data the line is unknown, unless the number itself says toll-free.
    aniKind: ani === undefined ? undefined : ani.tollFree ? "toll_free" : (lineType ?? "unknown"),
    aniAttestation: ani === undefined ? undefined : attestation,
    dnisKey: dnis?.key,
    externalIds: Object.entries(hints.externalIds),
    customerRef: hints.customerRef && isCustomerRef(hints.customerRef) ? hints.customerRef.toLowerCase() : undefined,
  };
}
