import { checkKind, parseKind } from "../accounts/account-checks.ts";
import type { AccountDeps } from "../accounts/account-deps.ts";
import { getAccount } from "../accounts/get-account.ts";
import { hashSecret, randomBase62, SECRET_LENGTH } from "../domain/api-key.ts";
import type { FieldIssue } from "../domain/domain-error.ts";
import { checkText } from "../domain/field-checks.ts";
import type { Integration } from "../domain/integration.ts";
import { MAX_ACCOUNT_NAME_LENGTH, MAX_VARIABLE_NAME_LENGTH, MAX_VARIABLES_PER_CALL } from "../domain/limits.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import { insertIntegration } from "../store/integration-repository.ts";
import { integrationRowToIntegration } from "./integration-rows.ts";
import { isPlatform, PLATFORMS, platformAdapter } from "./platforms/platform-adapters.ts";

export interface CreateIntegrationInput {
  readonly accountId: string;
  readonly platform: string;
  readonly name: string;
  readonly kind?: string;
  readonly signingSecret?: string;
  readonly assistantId?: string;
  readonly intentField?: string;
  readonly statusField?: string;
  readonly variableFields: readonly string[];
  readonly storeSummary: boolean;
  /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
  readonly decodeIssues?: readonly FieldIssue[];
}

export interface CreatedIntegration {
  readonly integration: Integration;
  /** Sent by the platform as a header; shown once, stored only as a hash. */
  readonly webhookSecret: string;
}

const MAX_SECRET_LENGTH = 512;

/** Platforms that sign with a secret of their own, which must be stored to check the signature. */

export async function createIntegration(
  deps: Pick<AccountDeps, "db" | "clock" | "monthlyQuota" | "secrets">,
  input: CreateIntegrationInput,
): Promise<CreatedIntegration> {
  const issues: FieldIssue[] = [];
  if (!isPlatform(input.platform))
    issues.push({ path: ["platform"], message: `Expected one of: ${PLATFORMS.join(", ")}` });
  if (input.name.trim() === "") issues.push({ path: ["name"], message: "Required" });
  checkText(issues, ["name"], input.name, MAX_ACCOUNT_NAME_LENGTH);
  const needs = platformAdapter(input.platform)?.creation ?? {};
  if (needs.signingSecret && !input.signingSecret) {
    issues.push({
      path: ["signing_secret"],
      message: `Required for ${input.platform}: the ${needs.signingSecret} it signs webhooks with`,
    });
  }
  checkText(issues, ["signing_secret"], input.signingSecret, MAX_SECRET_LENGTH);
  const badSecret = input.signingSecret ? needs.checkSigningSecret?.(input.signingSecret) : undefined;
  if (badSecret) issues.push({ path: ["signing_secret"], message: badSecret });
  if (needs.assistantId && !input.assistantId) {
    issues.push({ path: ["assistant_id"], message: `Required for ${input.platform}: ${needs.assistantId}` });
  }
  checkText(issues, ["assistant_id"], input.assistantId, MAX_VARIABLE_NAME_LENGTH);
  const intentField = input.intentField || "intent";
  const statusField = input.statusField || "intent_status";
  checkText(issues, ["end_of_call", "intent_field"], intentField, MAX_VARIABLE_NAME_LENGTH);
  checkText(issues, ["end_of_call", "status_field"], statusField, MAX_VARIABLE_NAME_LENGTH);
  if (input.variableFields.length > MAX_VARIABLES_PER_CALL) {
    issues.push({ path: ["end_of_call", "variable_fields"], message: `At most ${MAX_VARIABLES_PER_CALL} fields` });
  }
  input.variableFields.forEach((field, index) => {
    const path = ["end_of_call", "variable_fields", String(index)];
    if (field === "") issues.push({ path, message: "Must not be empty" });
    checkText(issues, path, field, MAX_VARIABLE_NAME_LENGTH);
  });
  checkKind(issues, input.kind ?? "test");
  refuseOffendingFields(issues, input.decodeIssues);
  const kind = parseKind(input.kind ?? "test");
  await getAccount(deps, input.accountId);

  const webhookSecret = `whsec_${randomBase62(SECRET_LENGTH)}`;
  const row = await insertIntegration(deps.db, {
    id: `int_${randomBase62(16)}`,
    account_id: input.accountId,
    // The URL names the integration; 32 base62 characters (about 190 bits) cannot be guessed.
    webhook_id: `wh_${randomBase62(32)}`,
    platform: input.platform,
    name: input.name.trim(),
    kind,
    token_hash: hashSecret(webhookSecret),
    // Sealed: it is the customer's key at the platform (Retell's API key), read back for every webhook.
    signing_secret: input.signingSecret ? deps.secrets.seal(input.signingSecret) : null,
    assistant_id: input.assistantId || null,
    intent_field: intentField,
    status_field: statusField,
    variable_fields: JSON.stringify([...new Set(input.variableFields)]),
    store_summary: input.storeSummary,
    created_at: deps.clock.now(),
  });
  return { integration: integrationRowToIntegration(row), webhookSecret };
}
