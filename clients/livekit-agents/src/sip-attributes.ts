import { LineType, type StartCallInput } from "@caller-context/client";

// A SIP caller reaches a LiveKit room as a participant whose attributes carry the call: `sip.phoneNumber`
// (the caller), `sip.trunkPhoneNumber` (the number dialled), `sip.callID`, and each SIP header the trunk
// maps to an attribute as `sip.h.<header>` (the trunk's `headers_to_attributes`).

export interface SipStartOptions {
  /**
   * External ids read from mapped headers: external id key → attribute name,
   * e.g. `{ account_number: "sip.h.x-account-number" }`. Absent or empty attributes are left out.
   */
  readonly externalIds?: Readonly<Record<string, string>>;
  /** An attribute carrying the line type (`mobile`, `landline`, `voip`, `unknown`), when the trunk maps one. */
  readonly lineTypeAttribute?: string;
  /**
   * An attribute carrying the platform's STIR/SHAKEN verification as received, sent as `telco.verstat`: a mapped
   * `X-Twilio-VerStat`, or Telnyx's `P-Asserted-Identity` whose `verstat=` parameter the service reads
   * (docs/identity.md lists the forms; one it does not know is refused, so map only a header that carries one).
   */
  readonly verstatAttribute?: string;
  /** An attribute carrying the attestation level itself (`A`, `B`, `C`), sent as `telco.attestation`. */
  readonly attestationAttribute?: string;
  /** Prefix of the call_id made from `sip.callID` (default `livekit-`), so ids of other sources never collide. */
  readonly callIdPrefix?: string;
}

/** Thrown for a participant without `sip.callID`: not a SIP caller, or not one yet. */
export class NotASipCallerError extends Error {
  override readonly name = "NotASipCallerError";
}

const LINE_TYPES: Readonly<Record<string, LineType>> = {
  mobile: LineType.MOBILE,
  landline: LineType.LANDLINE,
  voip: LineType.VOIP,
  unknown: LineType.UNKNOWN,
};

export function startRequestFromSip(
  attributes: Readonly<Record<string, string>>,
  options: SipStartOptions = {},
): StartCallInput {
  const sipCallId = attributes["sip.callID"];
  if (!sipCallId) throw new NotASipCallerError("The participant has no sip.callID attribute");
  const externalIds: Record<string, string> = {};
  for (const [key, attribute] of Object.entries(options.externalIds ?? {})) {
    const value = attributes[attribute]?.trim();
    if (value) externalIds[key] = value;
  }
  const lineType = options.lineTypeAttribute
    ? LINE_TYPES[attributes[options.lineTypeAttribute]?.trim().toLowerCase() ?? ""]
    : undefined;
  return {
    callId: `${options.callIdPrefix ?? "livekit-"}${sipCallId}`,
    identityHints: {
      ani: attributes["sip.phoneNumber"] || undefined,
      dnis: attributes["sip.trunkPhoneNumber"] || undefined,
      externalIds,
    },
    telco: telcoOf(
      lineType,
      attributeOf(attributes, options.attestationAttribute),
      attributeOf(attributes, options.verstatAttribute),
    ),
  };
}

/** A mapped attribute's value, trimmed; undefined when not mapped, absent or empty. */
function attributeOf(attributes: Readonly<Record<string, string>>, name: string | undefined): string | undefined {
  return (name === undefined ? undefined : attributes[name]?.trim()) || undefined;
}

function telcoOf(lineType: LineType | undefined, attestation: string | undefined, verstat: string | undefined) {
  if (lineType === undefined && attestation === undefined && verstat === undefined) return undefined;
  return {
    ...(lineType === undefined ? {} : { lineType }),
    // The levels are letters (A, B, C); "failed" and "none" are words.
    ...(attestation === undefined
      ? {}
      : { attestation: /^[abc]$/i.test(attestation) ? attestation.toUpperCase() : attestation.toLowerCase() }),
    ...(verstat === undefined ? {} : { verstat }),
  };
}
