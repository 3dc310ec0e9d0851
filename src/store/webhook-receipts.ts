import { sql } from "kysely";
import type { Db } from "./database.ts";

// The once-only record of a platform message: the first to claim a digest
// answers it, and its answer is kept for the replays.

export type Receipt =
  | { readonly first: true }
  | { readonly first: false /** Undefined while the first is still being answered. */; readonly replyJson?: string };

export async function claimReceipt(db: Db, integrationId: string, digest: string, now: Date): Promise<Receipt> {
  const inserted = await db
    .insertInto("webhook_receipts")
    .values({ integration_id: integrationId, digest, received_at: now, reply_json: null })
    .onConflict((conflict) => conflict.doNothing())
    .returning("digest")
    .executeTakeFirst();
  if (inserted !== undefined) return { first: true };
  const found = await db
    .selectFrom("webhook_receipts")
    .select("reply_json")
    .where("integration_id", "=", integrationId)
    .where("digest", "=", digest)
    .executeTakeFirst();
  return { first: false, replyJson: found?.reply_json ?? undefined };
}

export async function recordReply(db: Db, integrationId: string, digest: string, replyJson: string): Promise<void> {
  await db
    .updateTable("webhook_receipts")
    .set({ reply_json: replyJson })
    .where("integration_id", "=", integrationId)
    .where("digest", "=", digest)
    .execute();
}

/** A message that was not answered may come again: its claim is given up. */
export async function releaseReceipt(db: Db, integrationId: string, digest: string): Promise<void> {
  await db
    .deleteFrom("webhook_receipts")
    .where("integration_id", "=", integrationId)
    .where("digest", "=", digest)
    .where("reply_json", "is", null)
    .execute();
}

export async function deleteOldReceipts(db: Db, before: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from webhook_receipts
    where ctid in (select ctid from webhook_receipts where received_at < ${before} limit ${limit})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
