import type { Mode } from "../domain/tenant.ts";
import type { Db } from "./database.ts";
import type { ApiKeyRow } from "./schema.ts";

export interface KeyWithAccount {
  readonly keyId: string;
  readonly mode: Mode;
  readonly revoked: boolean;
  /** When a rolled key's old secret stops working; null while it has no end. */
  readonly expiresAt: Date | null;
  readonly accountId: string;
  readonly billingAccountId: string;
  readonly tier: string;
  readonly retentionDays: number;
}

export async function insertApiKey(
  db: Db,
  row: {
    id: string;
    account_id: string;
    kind: Mode;
    secret_hash: string;
    prefix: string;
    created_at: Date;
    name?: string;
  },
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
    .select([
      "k.id",
      "k.kind",
      "k.revoked_at",
      "k.expires_at",
      "a.id as account_id",
      "a.billing_account_id",
      "a.tier",
      "a.context_retention_days",
    ])
    .where("k.secret_hash", "=", secretHash)
    .executeTakeFirst();
  return (
    row && {
      keyId: row.id,
      mode: row.kind,
      revoked: row.revoked_at !== null,
      expiresAt: row.expires_at,
      accountId: row.account_id,
      billingAccountId: row.billing_account_id,
      tier: row.tier,
      retentionDays: row.context_retention_days,
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

/** One key of one account: another account's key id finds nothing. */
export async function findAccountKey(db: Db, accountId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom("api_keys")
    .selectAll()
    .where("id", "=", keyId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** Ends a key's secret at `at` unless it already ends sooner. */
export async function expireApiKey(db: Db, keyId: string, at: Date): Promise<void> {
  await db
    .updateTable("api_keys")
    .set({ expires_at: at })
    .where("id", "=", keyId)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", at)]))
    .execute();
}
