import type { Db } from "./database.ts";
import type { IntegrationRow, NewIntegrationRow } from "./schema.ts";

export interface IntegrationWithAccount {
  readonly integration: IntegrationRow;
  readonly billingAccountId: string;
  readonly tier: string;
  readonly retentionDays: number;
}

export async function insertIntegration(db: Db, row: NewIntegrationRow): Promise<IntegrationRow> {
  return db.insertInto("integrations").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listIntegrationRows(db: Db, accountId: string): Promise<IntegrationRow[]> {
  return db.selectFrom("integrations").selectAll().where("account_id", "=", accountId).orderBy("created_at").execute();
}

/** The deleted row; `accountId`, when given, must own it. */
export async function deleteIntegrationRow(
  db: Db,
  integrationId: string,
  accountId?: string,
): Promise<IntegrationRow | undefined> {
  return db
    .deleteFrom("integrations")
    .where("id", "=", integrationId)
    .$if(accountId !== undefined, (query) => query.where("account_id", "=", accountId as string))
    .returningAll()
    .executeTakeFirst();
}

/** The integration a webhook URL names, with its account's billing facts, in one indexed lookup. */
export async function findIntegrationByWebhookId(
  db: Db,
  webhookId: string,
): Promise<IntegrationWithAccount | undefined> {
  const row = await db
    .selectFrom("integrations as i")
    .innerJoin("accounts as a", "a.id", "i.account_id")
    .selectAll("i")
    .select(["a.billing_account_id", "a.tier", "a.context_retention_days"])
    .where("i.webhook_id", "=", webhookId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { billing_account_id, tier, context_retention_days, ...integration } = row;
  return { integration, billingAccountId: billing_account_id, tier, retentionDays: context_retention_days };
}

/** Every stored signing secret, as stored (sealed or not), for resealing under a new key. */
export async function listSigningSecrets(db: Db): Promise<{ id: string; signing_secret: string }[]> {
  const rows = await db
    .selectFrom("integrations")
    .select(["id", "signing_secret"])
    .where("signing_secret", "is not", null)
    .execute();
  return rows.map((row) => ({ id: row.id, signing_secret: row.signing_secret as string }));
}

/** Replaces a signing secret only if it is still `stored`: another instance may have resealed it first. */
export async function replaceSigningSecret(db: Db, id: string, stored: string, sealed: string): Promise<void> {
  await db
    .updateTable("integrations")
    .set({ signing_secret: sealed })
    .where("id", "=", id)
    .where("signing_secret", "=", stored)
    .execute();
}
