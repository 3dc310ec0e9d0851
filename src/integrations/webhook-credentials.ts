import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { bearerToken, hashSecret } from "../domain/api-key.ts";

// The checks a platform's webhook credential needs: a secret header against
// the stored hash, or an HMAC over the exact body. Every comparison is
// constant-time over fixed-length digests.

export function hmacSha256Hex(secret: string, message: string): string {
  return createHmac("sha256", secret).update(message, "utf8").digest("hex");
}

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
