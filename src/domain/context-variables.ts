import type { StartCallResult } from "./call.ts";

// The caller's context as flat string variables an agent prompt can use as
// they are: every platform's templating takes strings only, and a declared
// variable must always be present, so "unknown" is the empty string.

export const VARIABLE_PREFIX = "var_";

/** A stored variable's name made safe for {{...}} templates: lower case letters, digits and underscores. */
export function templateSafeName(name: string): string {
  const safe = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return `${VARIABLE_PREFIX}${safe === "" ? "unnamed" : safe}`;
}

/**
 * Why an inbound answer carries no context although the caller may be known: the call goes ahead either way
 * (a platform fails the call on anything but a 2xx), and the reason is there for logs and prompts that care.
 */
export type NoContextReason = "quota_exhausted" | "rate_limited" | "overloaded" | "timeout" | "duplicate" | "error";

/** The variables of a caller nothing is known about: every declared name present and empty. */
export function noContextVariables(declared: readonly string[], reason?: NoContextReason): Record<string, string> {
  const variables: Record<string, string> = {
    customer_ref: "",
    identity_confidence: "",
    identity_level: "",
    identity_recommendation: "",
    open_intents: "",
    last_call_summary: "",
    held_back_variables: "",
    caller_context: "No caller context is available for this call; treat the caller as new.",
    no_context_reason: reason ?? "",
  };
  for (const name of declared) variables[templateSafeName(name)] = "";
  return variables;
}

export function contextVariables(result: StartCallResult, declared: readonly string[]): Record<string, string> {
  const variables = noContextVariables(declared);
  variables.customer_ref = result.customerRef;
  variables.identity_confidence = result.identity.confidence.toFixed(2);
  variables.identity_level = result.identity.level;
  variables.identity_recommendation = result.identity.recommendation;
  variables.open_intents = result.openIntents.map((i) => `${i.intent} (${attempts(i.attemptCount)})`).join(", ");
  // A start from a platform carries the caller's number alone: a variable saved with requires_verification is
  // never among result.variables then, only its name, so the agent knows to verify before asking for it.
  for (const [name, variable] of Object.entries(result.variables)) {
    variables[templateSafeName(name)] = variable.value;
  }
  variables.last_call_summary = result.recentCalls[0]?.summary ?? "";
  variables.held_back_variables = result.heldBackVariables.join(", ");
  variables.caller_context = summarize(result, variables.open_intents);
  return variables;
}

function attempts(count: number): string {
  return count === 1 ? "1 attempt" : `${count} attempts`;
}

/** One paragraph an agent prompt can include as is. */
function summarize(result: StartCallResult, openIntents: string): string {
  const { identity } = result;
  const known = Object.entries(result.variables).map(([name, v]) => `${name}: ${v.value}`);
  const lastCall = result.recentCalls[0];
  const nothingStored = openIntents === "" && known.length === 0 && lastCall === undefined;
  if (identity.recommendation === "ignore" || (nothingStored && result.heldBackVariables.length === 0)) {
    return identity.recommendation === "ignore"
      ? "This caller could not be matched to an earlier caller with confidence; treat them as new."
      : "No earlier context is stored for this caller; treat them as new.";
  }
  const who =
    identity.recommendation === "reuse"
      ? `Returning caller, identity confidence ${identity.level}.`
      : `Possibly a returning caller (identity confidence ${identity.level}): confirm who they are before relying on this context.`;
  const matters = openIntents === "" ? "No open matters." : `Open matters from earlier calls: ${openIntents}.`;
  const details = known.length === 0 ? "" : ` Known details: ${known.join("; ")}.`;
  const last =
    lastCall === undefined ? "" : ` Last call (${lastCall.callEnd.toISOString().slice(0, 10)}): ${lastCall.summary}`;
  const held =
    result.heldBackVariables.length === 0
      ? ""
      : ` Held back until the caller's identity is verified: ${result.heldBackVariables.join(", ")}.`;
  return `${who} ${matters}${details}${last}${held}`;
}
