import type { Db } from "./database.ts";
import type { IntegrationRow, NewIntegrationRow } from "./schema.ts";

export interface IntegrationWithAccount {
  readonly integration: IntegrationRow;
  readonly billingAccountId: string;
  readonly tier: string;
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
    .select(["a.billing_account_id", "a.tier"])
    .where("i.webhook_id", "=", webhookId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { billing_account_id, tier, ...integration } = row;
  return { integration, billingAccountId: billing_account_id, tier };
}
