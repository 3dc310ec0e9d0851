import { generateKeyPairSync } from "node:crypto";

/**
 * A Telnyx key pair for a local integration: the public half as Mission Control shows it (base64 of the 32 raw
 * bytes, for `integrations create --signing-secret`), the private half as base64 PKCS#8 DER (for `simulate`).
 */
export function telnyxKeyPair(): { publicKey: string; privateKey: string } {
  const pair = generateKeyPairSync("ed25519");
  const raw = Buffer.from(pair.publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  return {
    publicKey: raw.toString("base64"),
    privateKey: pair.privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
  };
}
