import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import type { BodyCheck } from "./platforms/platform-adapter.ts";

// Ed25519 verification for a message too large to hold: the only part of it
// that reads the message is the hash k = SHA-512(R || A || M), which is fed as
// the body streams; the curve arithmetic ([S]B = R + [k]A, as OpenSSL checks
// it) is @noble/curves'. node:crypto's verify needs the whole message at once.

const Point = ed25519.Point;
const ORDER = Point.Fn.ORDER;

/** A check of `prefix + body` against a base64 signature by a base64 raw 32-byte public key. */
export function ed25519StreamingCheck(publicKeyBase64: string, prefix: string, signatureBase64: string): BodyCheck {
  const publicKey = Buffer.from(publicKeyBase64, "base64");
  const signature = Buffer.from(signatureBase64, "base64");
  if (publicKey.length !== 32 || signature.length !== 64) return { update() {}, matches: () => false };
  const r = signature.subarray(0, 32);
  const hash = createHash("sha512").update(r).update(publicKey).update(prefix, "utf8");
  return {
    update: (chunk) => void hash.update(chunk),
    matches() {
      const s = littleEndian(signature.subarray(32));
      if (s === 0n || s >= ORDER) return false;
      const k = littleEndian(hash.digest()) % ORDER;
      try {
        const expected = Point.fromBytes(r).add(Point.fromBytes(publicKey).multiplyUnsafe(k));
        return Point.BASE.multiply(s).equals(expected);
      } catch {
        // Not a point on the curve: no signature.
        return false;
      }
    },
  };
}

function littleEndian(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).reverse().toString("hex")}`);
}
