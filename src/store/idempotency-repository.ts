import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";

export type IdempotencyClaim =
  | { readonly kind: "claimed" }
  | { readonly kind: "replay"; readonly requestHash: string; readonly response: string };

/**
 * Claims a key for this request, inside the end's transaction. A concurrent
 * claim of the same key waits on the primary key until the first commits (and
 * then replays it) or rolls back (and then claims it). An expired key is
 * claimed afresh.
 */
export async function claimIdempotencyKey(
  db: Db,
  tenant: Tenant,
  key: string,
  requestHash: string,
  now: Date,
  expiresAt: Date,
): Promise<IdempotencyClaim> {
  const claimed = await db
    .insertInto("idempotency_keys")
    .values({
      account_id: tenant.accountId,
      mode: tenant.mode,
      key,
      request_hash: requestHash,
      response: null,
      created_at: now,
      expires_at: expiresAt,
    })
    .onConflict((oc) =>
      oc
        .columns(["account_id", "mode", "key"])
        .doUpdateSet({ request_hash: requestHash, response: null, created_at: now, expires_at: expiresAt })
        .where("idempotency_keys.expires_at", "<=", now),
    )
    .returning("key")
    .executeTakeFirst();
  if (claimed) return { kind: "claimed" };
  const row = await db
    .selectFrom("idempotency_keys")
    .select(["request_hash", "response"])
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("key", "=", key)
    .executeTakeFirstOrThrow();
  // A committed claim always carries its response: both are written in one transaction.
  return { kind: "replay", requestHash: row.request_hash, response: row.response ?? "" };
}
