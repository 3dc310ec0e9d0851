import type { Insertable } from "kysely";
import type { Db } from "./database.ts";
import type { UserTokenTable } from "./schema.ts";

type Purpose = UserTokenTable["purpose"];

export async function insertUserToken(db: Db, row: Omit<Insertable<UserTokenTable>, "used_at">): Promise<void> {
  await db
    .insertInto("user_tokens")
    .values({ ...row, used_at: null })
    .execute();
}

/** Whether a token is open (neither used nor expired), without spending it. */
export async function findOpenUserToken(db: Db, tokenHash: string, purpose: Purpose, now: Date) {
  return db
    .selectFrom("user_tokens")
    .select("user_id")
    .where("token_hash", "=", tokenHash)
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

/** Spends an open token in one statement, so a link works once even when opened twice at once. */
export async function claimUserToken(db: Db, tokenHash: string, purpose: Purpose, now: Date) {
  return db
    .updateTable("user_tokens")
    .set({ used_at: now })
    .where("token_hash", "=", tokenHash)
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning("user_id")
    .executeTakeFirst();
}

/** A new link of a purpose makes the older ones useless. */
export async function spendUserTokens(db: Db, userId: string, purpose: Purpose, now: Date): Promise<void> {
  await db
    .updateTable("user_tokens")
    .set({ used_at: now })
    .where("user_id", "=", userId)
    .where("purpose", "=", purpose)
    .where("used_at", "is", null)
    .execute();
}
