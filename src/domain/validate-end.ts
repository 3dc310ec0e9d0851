import type { EndCallCommand, EndCallInput, IntentUpdateInput } from "./call.ts";
import { type FieldIssue, validationError } from "./domain-error.ts";
import { checkMaxEntries, checkNotEmpty, checkRequired, checkText, type Issues } from "./field-checks.ts";
import {
  DEFAULT_VARIABLE_TTL_SECONDS,
  MAX_CALL_ID_LENGTH,
  MAX_CUSTOMER_REF_LENGTH,
  MAX_INTENT_LENGTH,
  MAX_INTENT_UPDATES_PER_CALL,
  MAX_RESOLUTION_FIELD_LENGTH,
  MAX_SOURCE_LENGTH,
  MAX_SUMMARY_LENGTH,
  MAX_VARIABLE_NAME_LENGTH,
  MAX_VARIABLE_TTL_SECONDS,
  MAX_VARIABLE_VALUE_LENGTH,
  MAX_VARIABLES_PER_CALL,
} from "./limits.ts";
import { type SensitiveDataPolicy, screenName, screenVariableValue } from "./sensitive-data.ts";
import { checkIdentityHints } from "./validate-hints.ts";
import { dropShadowed } from "./validate-start.ts";

type Variables = EndCallCommand["variables"];

/**
 * Validates an end request and reduces its simple or advanced form to one
 * command. Throws a DomainError listing every problem.
 */
export function validateEndCall(
  input: EndCallInput,
  policy: SensitiveDataPolicy,
  earlier: readonly FieldIssue[] = [],
): EndCallCommand {
  const issues: Issues = [...earlier];
  if (checkRequired(issues, ["call_id"], input.callId)) {
    checkText(issues, ["call_id"], input.callId, MAX_CALL_ID_LENGTH);
  }
  if (input.customerRef === undefined && input.identityHints === undefined) {
    issues.push({ path: ["customer_ref"], message: "Either customer_ref or identity_hints is required" });
  }
  checkNotEmpty(issues, ["customer_ref"], input.customerRef);
  checkText(issues, ["customer_ref"], input.customerRef, MAX_CUSTOMER_REF_LENGTH);
  if (input.identityHints) checkIdentityHints(issues, input.identityHints);

  const simple =
    input.intent !== undefined || input.intentStatus !== undefined || Object.keys(input.variables).length > 0;
  const advanced = input.intentUpdates.length > 0 || Object.keys(input.variableUpdates).length > 0;
  if (simple && advanced) {
    issues.push({
      path: [],
      message: "Use either intent/intent_status/variables or intent_updates/variable_updates, not both",
    });
  }

  const intents = simple ? simpleIntents(issues, input, policy) : advancedIntents(issues, input.intentUpdates, policy);
  const variables = simple
    ? simpleVariables(issues, input.variables, policy)
    : advancedVariables(issues, input.variableUpdates, policy);

  const summary = checkSummary(issues, input.summary, policy);

  if (issues.length > 0) throw validationError(dropShadowed(issues, earlier));
  return {
    callId: input.callId,
    customerRef: input.customerRef,
    identityHints: input.identityHints,
    intents,
    variables,
    ...(summary === undefined ? {} : { summary }),
  };
}

/** A summary is screened as a variable's value is; a blank one (platforms send "") is no summary. */
function checkSummary(issues: Issues, summary: string | undefined, policy: SensitiveDataPolicy): string | undefined {
  if (summary === undefined || summary.trim() === "") return undefined;
  checkText(issues, ["summary"], summary, MAX_SUMMARY_LENGTH);
  return screenVariableValue(issues, ["summary"], summary, policy);
}

function simpleIntents(issues: Issues, input: EndCallInput, policy: SensitiveDataPolicy): IntentUpdateInput[] {
  if (input.intent === undefined) {
    if (input.intentStatus !== undefined)
      issues.push({ path: ["intent"], message: "Required when intent_status is set" });
    return [];
  }
  checkIntentName(issues, ["intent"], input.intent, policy);
  // An intent saved without a status stays on the caller's list: open.
  return [{ intent: input.intent, status: input.intentStatus ?? "open" }];
}

function advancedIntents(
  issues: Issues,
  updates: readonly IntentUpdateInput[],
  policy: SensitiveDataPolicy,
): IntentUpdateInput[] {
  checkMaxEntries(issues, ["intent_updates"], updates.length, MAX_INTENT_UPDATES_PER_CALL);
  const screened = updates.map((update, index) => {
    const path = ["intent_updates", String(index)];
    if (checkRequired(issues, [...path, "intent"], update.intent))
      checkIntentName(issues, [...path, "intent"], update.intent, policy);
    if (update.status === undefined) issues.push({ path: [...path, "status"], message: "Required" });
    checkText(issues, [...path, "resolution", "type"], update.resolution?.type, MAX_RESOLUTION_FIELD_LENGTH);
    checkText(
      issues,
      [...path, "resolution", "external_reference"],
      update.resolution?.externalReference,
      MAX_RESOLUTION_FIELD_LENGTH,
    );
    const resolution = update.resolution && {
      type: screenVariableValue(issues, [...path, "resolution", "type"], update.resolution.type, policy),
      externalReference: screenVariableValue(
        issues,
        [...path, "resolution", "external_reference"],
        update.resolution.externalReference,
        policy,
      ),
    };
    return resolution === undefined ? update : { ...update, resolution };
  });
  // Several updates of one intent in one call: the last one stands.
  const last = new Map(screened.map((update) => [update.intent, update]));
  return [...last.values()];
}

function checkIntentName(issues: Issues, path: string[], intent: string, policy: SensitiveDataPolicy): void {
  checkNotEmpty(issues, path, intent);
  checkText(issues, path, intent, MAX_INTENT_LENGTH);
  screenName(issues, path, intent, policy);
}

function checkVariableName(issues: Issues, path: string[], name: string, policy: SensitiveDataPolicy): void {
  if (name === "") issues.push({ path, message: "Variable name must not be empty" });
  checkText(issues, path, name, MAX_VARIABLE_NAME_LENGTH);
  screenName(issues, path, name, policy);
}

function simpleVariables(
  issues: Issues,
  variables: Readonly<Record<string, string>>,
  policy: SensitiveDataPolicy,
): Variables {
  const entries = Object.entries(variables);
  checkMaxEntries(issues, ["variables"], entries.length, MAX_VARIABLES_PER_CALL);
  const result = new Map<
    string,
    { value: string; source: string | null; ttlSeconds: number; requiresVerification: boolean }
  >();
  for (const [name, raw] of entries) {
    const path = ["variables", name];
    checkVariableName(issues, path, name, policy);
    checkText(issues, path, raw, MAX_VARIABLE_VALUE_LENGTH);
    const value = screenVariableValue(issues, path, raw, policy);
    result.set(name, { value, source: null, ttlSeconds: DEFAULT_VARIABLE_TTL_SECONDS, requiresVerification: false });
  }
  return result;
}

function advancedVariables(
  issues: Issues,
  updates: EndCallInput["variableUpdates"],
  policy: SensitiveDataPolicy,
): Variables {
  const entries = Object.entries(updates);
  checkMaxEntries(issues, ["variable_updates"], entries.length, MAX_VARIABLES_PER_CALL);
  const result = new Map<
    string,
    { value: string; source: string | null; ttlSeconds: number; requiresVerification: boolean }
  >();
  for (const [name, update] of entries) {
    const path = ["variable_updates", name];
    checkVariableName(issues, path, name, policy);
    checkText(issues, [...path, "value"], update.value, MAX_VARIABLE_VALUE_LENGTH);
    checkText(issues, [...path, "source"], update.source, MAX_SOURCE_LENGTH);
    const ttl = update.ttlSeconds ?? DEFAULT_VARIABLE_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_VARIABLE_TTL_SECONDS) {
      issues.push({
        path: [...path, "ttl_seconds"],
        message: `Must be an integer from 1 to ${MAX_VARIABLE_TTL_SECONDS}`,
      });
    }
    const value = screenVariableValue(issues, [...path, "value"], update.value, policy);
    const source =
      update.source === undefined ? null : screenVariableValue(issues, [...path, "source"], update.source, policy);
    result.set(name, { value, source, ttlSeconds: ttl, requiresVerification: update.requiresVerification === true });
  }
  return result;
}
