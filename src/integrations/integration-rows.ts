import { type Integration, WEBHOOK_PATH_PREFIX } from "../domain/integration.ts";
import type { IntegrationRow } from "../store/schema.ts";
import { isPlatform } from "./platforms/platform-adapters.ts";

export function integrationRowToIntegration(row: IntegrationRow): Integration {
  return {
    integrationId: row.id,
    accountId: row.account_id,
    platform: isPlatform(row.platform) ? row.platform : "twilio_studio",
    name: row.name,
    kind: row.kind,
    webhookPath: `${WEBHOOK_PATH_PREFIX}${row.webhook_id}`,
    assistantId: row.assistant_id ?? "",
    hasSigningSecret: row.signing_secret !== null,
    endOfCall: {
      intentField: row.intent_field,
      statusField: row.status_field,
      variableFields: JSON.parse(row.variable_fields) as string[],
      storeSummary: row.store_summary,
    },
  };
}
