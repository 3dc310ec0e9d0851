import { createPublicKey, type KeyObject, verify } from "node:crypto";

// Ed25519 as Telnyx uses it: the account's public key is shown in Mission
// Control as the base64 of its 32 raw bytes, and a signature is the base64 of
// its 64 bytes. node:crypto takes a raw key only as a JWK.

/** 32 bytes in standard base64 are 43 characters and one "=". */
const RAW_KEY_BASE64 = /^[A-Za-z0-9+/]{43}=$/;
const SIGNATURE_BYTES = 64;

/**
 * Whether the text has the form of Telnyx's public key. Only the form can be
 * checked: OpenSSL imports any 32 bytes as an Ed25519 key without testing the point.
 */
export function isEd25519PublicKey(base64: string): boolean {
  return RAW_KEY_BASE64.test(base64);
}

/** Whether the base64 signature is the key's over the message; false for any malformed part. */
export function ed25519Verifies(publicKeyBase64: string, message: string, signatureBase64: string): boolean {
  const key = publicKey(publicKeyBase64);
  const signature = Buffer.from(signatureBase64, "base64");
  if (key === undefined || signature.length !== SIGNATURE_BYTES) return false;
  try {
    return verify(null, Buffer.from(message, "utf8"), key, signature);
  } catch {
    return false;
  }
}

function publicKey(base64: string): KeyObject | undefined {
  if (!RAW_KEY_BASE64.test(base64)) return undefined;
  try {
    const x = Buffer.from(base64, "base64").toString("base64url");
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
  } catch {
    return undefined;
  }
}
