import { createHash, randomBytes } from "node:crypto";
import type { Mode } from "./tenant.ts";

// API keys: "sk_test_" or "sk_prod_" and 40 base62 characters from the
// CSPRNG (about 238 bits). Only the SHA-256 of a key is ever stored; a key
// of this strength needs no slow hash, and a fast one keeps auth cheap.

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const SECRET_LENGTH = 40;
const KEY_PATTERN = /^sk_(test|prod)_[0-9A-Za-z]{32,128}$/;

export function generateApiKey(mode: Mode): string {
  return `sk_${mode}_${randomBase62(SECRET_LENGTH)}`;
}

/** Unbiased base62 by rejection sampling: bytes 248..255 are thrown away. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** The mode a well-formed key belongs to, or undefined for anything else. */
export function modeOfApiKey(key: string): Mode | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as Mode) : undefined;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when malformed. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

/** The part of a key safe to show in listings: kind and the first characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, "sk_test_".length + 4);
}
