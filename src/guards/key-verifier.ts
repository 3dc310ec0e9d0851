import { bearerToken, hashSecret, modeOfApiKey } from "../domain/api-key.ts";
import { type Clock, systemClock } from "../domain/clock.ts";
import { isTier } from "../domain/tiers.ts";
import type { KeyVerifier, Verification } from "../pipeline/verifiers.ts";
import { findKeyByHash } from "../store/api-key-repository.ts";
import type { Db } from "../store/database.ts";
import { createShortLivedCache } from "./short-lived-cache.ts";

// Turns an Authorization header into a principal. Lookups are cached for
// less than a second; a revocation on this instance clears the cache at once.

export const MISSING_KEY_MESSAGE = "Invalid or missing API key";
export const REVOKED_KEY_MESSAGE = "API key has been revoked";

export function createKeyVerifier(
  db: Db,
  monotonicNow: () => number = () => performance.now(),
  clock: Clock = systemClock,
): KeyVerifier {
  const cache = createShortLivedCache<{ verification: Verification; keyEnds?: Date | null }>(monotonicNow);
  return {
    async verify(authorization) {
      const key = bearerToken(authorization);
      if (key === undefined || modeOfApiKey(key) === undefined) return { ok: false, message: MISSING_KEY_MESSAGE };
      // Looking up by hash compares hashes in the database index, never the secret itself.
      const hash = hashSecret(key);
      const entry = await cache.get(hash, async () => {
        const row = await findKeyByHash(db, hash);
        return { verification: toVerification(row), keyEnds: row?.expiresAt };
      });
      return expired(entry, clock.now());
    },
    forgetAll() {
      cache.clear();
    },
  };
}

/** A rolled key's old secret is refused like a revoked key once its grace has run out. */
function expired(entry: { verification: Verification; keyEnds?: Date | null }, now: Date): Verification {
  if (entry.verification.ok && entry.keyEnds && entry.keyEnds <= now)
    return { ok: false, message: REVOKED_KEY_MESSAGE };
  return entry.verification;
}

function toVerification(row: Awaited<ReturnType<typeof findKeyByHash>>): Verification {
  if (row === undefined) return { ok: false, message: MISSING_KEY_MESSAGE };
  if (row.revoked) return { ok: false, message: REVOKED_KEY_MESSAGE };
  return {
    ok: true,
    principal: {
      tenant: { accountId: row.accountId, mode: row.mode },
      keyId: row.keyId,
      billingAccountId: row.billingAccountId,
      tier: isTier(row.tier) ? row.tier : "free",
      retentionDays: row.retentionDays,
    },
  };
}
