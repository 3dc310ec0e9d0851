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
