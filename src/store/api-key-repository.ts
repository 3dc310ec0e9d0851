import type { Mode } from "../domain/tenant.ts";
import type { Db } from "./database.ts";
import type { ApiKeyRow } from "./schema.ts";

export interface KeyWithAccount {
  readonly keyId: string;
  readonly mode: Mode;
  readonly revoked: boolean;
  readonly accountId: string;
  readonly billingAccountId: string;
  readonly tier: string;
}

export async function insertApiKey(
  db: Db,
  row: { id: string; account_id: string; kind: Mode; secret_hash: string; prefix: string; created_at: Date },
): Promise<ApiKeyRow> {
  return db
    .insertInto("api_keys")
    .values({ ...row, revoked_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The key with this secret hash and its account, in one indexed lookup. */
export async function findKeyByHash(db: Db, secretHash: string): Promise<KeyWithAccount | undefined> {
  const row = await db
    .selectFrom("api_keys as k")
    .innerJoin("accounts as a", "a.id", "k.account_id")
    .select(["k.id", "k.kind", "k.revoked_at", "a.id as account_id", "a.billing_account_id", "a.tier"])
    .where("k.secret_hash", "=", secretHash)
    .executeTakeFirst();
  return (
    row && {
      keyId: row.id,
      mode: row.kind,
      revoked: row.revoked_at !== null,
      accountId: row.account_id,
      billingAccountId: row.billing_account_id,
      tier: row.tier,
    }
  );
}

export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom("api_keys").selectAll().where("account_id", "=", accountId).orderBy("created_at").execute();
}

/** Revokes a key; revoking twice keeps the first time. Undefined when no such key. */
export async function revokeApiKey(db: Db, keyId: string, now: Date): Promise<ApiKeyRow | undefined> {
  await db
    .updateTable("api_keys")
    .set({ revoked_at: now })
    .where("id", "=", keyId)
    .where("revoked_at", "is", null)
    .execute();
  return db.selectFrom("api_keys").selectAll().where("id", "=", keyId).executeTakeFirst();
}
