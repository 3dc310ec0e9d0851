import type { Insertable } from "kysely";
import type { Db } from "./database.ts";
import type { InviteTable } from "./schema.ts";

export async function insertInvite(db: Db, row: Omit<Insertable<InviteTable>, "used_at">): Promise<void> {
  await db
    .insertInto("invites")
    .values({ ...row, used_at: null })
    .execute();
}

/** An invite that is neither used nor expired. */
export async function findOpenInvite(db: Db, tokenHash: string, now: Date) {
  return db
    .selectFrom("invites")
    .selectAll()
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
}

/** Marks an open invite used, in one statement, so two people cannot both use it. */
export async function claimInvite(db: Db, tokenHash: string, now: Date) {
  return db
    .updateTable("invites")
    .set({ used_at: now })
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning(["account_id"])
    .executeTakeFirst();
}

/** An account's invitations that can still be used, newest first. */
export async function listOpenInvites(db: Db, accountId: string, now: Date) {
  return db
    .selectFrom("invites")
    .select(["token_hash", "created_by", "created_at", "expires_at"])
    .where("account_id", "=", accountId)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("created_at", "desc")
    .execute();
}

/** Ends an open invitation of the account at once; undefined when there is none by that hash. */
export async function revokeInvite(db: Db, accountId: string, tokenHash: string, now: Date) {
  return db
    .updateTable("invites")
    .set({ expires_at: now })
    .where("token_hash", "=", tokenHash)
    .where("account_id", "=", accountId)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .returning(["token_hash"])
    .executeTakeFirst();
}
