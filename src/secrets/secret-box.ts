import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

// Secrets the service must read back (a platform's signing secret or API key,
// the dashboard's cookie key) are stored sealed with AES-256-GCM: a copy of
// the database, its WAL or a backup without the key shows none of them.
// A sealed value names the key that sealed it, so a rotated key still opens
// what the previous one sealed until everything is sealed again.

const PREFIX = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_BYTES = 32;

export class SecretKeyError extends Error {
  constructor(keyId: string) {
    super(`a stored secret was sealed with key ${keyId}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`);
    this.name = "SecretKeyError";
  }
}

export interface SecretBox {
  /** The id of the key that seals: the first 8 hex digits of its SHA-256. */
  readonly keyId: string;
  seal(plain: string): string;
  /** The plain secret; a value stored before secrets were sealed is returned as it is. */
  open(stored: string): string;
  /** Whether the value is sealed with the current key (and so needs no resealing). */
  isCurrent(stored: string): boolean;
}

export function secretKeyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

/** `current` seals and opens; `previous` keys only open, for a rotation. */
export function createSecretBox(current: Buffer, previous: readonly Buffer[] = []): SecretBox {
  for (const key of [current, ...previous]) {
    if (key.length !== SECRETS_KEY_BYTES) throw new Error(`a secrets key must be ${SECRETS_KEY_BYTES} bytes`);
  }
  const keyId = secretKeyId(current);
  const keys = new Map([...previous, current].map((key) => [secretKeyId(key), key]));
  return {
    keyId,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      // The key id is authenticated too: a value cannot be moved under another key's name.
      cipher.setAAD(Buffer.from(keyId));
      const sealed = Buffer.concat([iv, cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${keyId}:${sealed.toString("base64url")}`;
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const [id = "", data = ""] = stored.slice(PREFIX.length).split(":");
      const key = keys.get(id);
      if (key === undefined) throw new SecretKeyError(id);
      const bytes = Buffer.from(data, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    },
    isCurrent: (stored) => stored.startsWith(`${PREFIX}${keyId}:`),
  };
}
