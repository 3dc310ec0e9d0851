import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";

// Telnyx's signing, done as Telnyx does it: an Ed25519 key pair whose public
// half Mission Control shows as the base64 of its 32 raw bytes, and a
// signature over "<seconds>|<body>" sent as base64 with the timestamp beside it.

export interface TelnyxKeys {
  readonly publicKey: string;
  readonly privateKey: KeyObject;
}

export function createTelnyxKeys(): TelnyxKeys {
  const pair = generateKeyPairSync("ed25519");
  const x = pair.publicKey.export({ format: "jwk" }).x ?? "";
  return { publicKey: Buffer.from(x, "base64url").toString("base64"), privateKey: pair.privateKey };
}

/** The account the tests' Telnyx integrations are created with. */
export const TELNYX_KEYS = createTelnyxKeys();
/** Another account's keys: its signatures must not pass. */
export const OTHER_TELNYX_KEYS = createTelnyxKeys();

export function telnyxHeaders(
  payload: string,
  keys: TelnyxKeys = TELNYX_KEYS,
  nowMs = Date.now(),
): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signature = sign(null, Buffer.from(`${timestamp}|${payload}`, "utf8"), keys.privateKey).toString("base64");
  return { "telnyx-signature-ed25519": signature, "telnyx-timestamp": timestamp };
}
