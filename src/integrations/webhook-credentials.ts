import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { bearerToken, hashSecret } from "../domain/api-key.ts";
import type { BodyCheck } from "./platforms/platform-adapter.ts";

// The checks a platform's webhook credential needs: a secret header against
// the stored hash, or an HMAC over the exact body. Every comparison is
// constant-time over fixed-length digests.

/** Equal strings, compared in constant time whatever their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** The integration's own secret, sent as a header value. */
export function tokenMatches(token: string | undefined, tokenHash: string): boolean {
  if (token === undefined || token === "") return false;
  return timingSafeEqual(Buffer.from(hashSecret(token), "hex"), Buffer.from(tokenHash, "hex"));
}

export function bearerMatches(headers: Headers, tokenHash: string): boolean {
  return tokenMatches(bearerToken(headers.get("authorization")), tokenHash);
}

/** The comma-separated `k=v` parts of a signature header. */
export function signatureParts(header: string | null): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of (header ?? "").split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) parts.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return parts;
}

/** The password of an `Authorization: Basic` header (the user name is not checked), or undefined. */
export function basicPassword(authorization: string | null): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "");
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** A check that needs no body: a credential in a header, already decided. */
export function headerCheck(matches: boolean): BodyCheck {
  return { update() {}, matches: () => matches };
}

/** Hex HMAC-SHA256 over `prefix + body + suffix`, the body fed as it arrives, compared with `expected`. */
export function hmacSha256Check(secret: string, prefix: string, suffix: string, expected: string): BodyCheck {
  const mac = createHmac("sha256", secret).update(prefix, "utf8");
  return {
    update: (chunk) => void mac.update(chunk),
    matches: () => safeEqual(mac.update(suffix, "utf8").digest("hex"), expected),
  };
}

/** Runs a streaming check over a whole body at once. */
export function checkWhole(check: BodyCheck | undefined, payload: string): boolean {
  if (check === undefined) return false;
  check.update(Buffer.from(payload, "utf8"));
  return check.matches();
}
