import type { StartCallInput } from "./call.ts";
import { validationError } from "./domain-error.ts";
import { checkRequired, checkText, type Issues } from "./field-checks.ts";
import { MAX_CALL_ID_LENGTH } from "./limits.ts";
import { checkTelcoAttestation } from "./telco.ts";
import { checkIdentityHints, hasIdentifier } from "./validate-hints.ts";

/** Throws a DomainError listing every problem; returns the input when valid. */
export function validateStartCall(input: StartCallInput, earlier: Issues = []): StartCallInput {
  const issues: Issues = [...earlier];
  if (checkRequired(issues, ["call_id"], input.callId)) {
    checkText(issues, ["call_id"], input.callId, MAX_CALL_ID_LENGTH);
  }
  if (!hasIdentifier(input.identityHints)) {
    issues.push({
      path: ["identity_hints"],
      message: "Must contain at least one of ani, external_ids, customer_ref",
    });
  }
  if (input.identityHints) checkIdentityHints(issues, input.identityHints);
  checkTelcoAttestation(issues, input);
  if (issues.length > 0) throw validationError(dropShadowed(issues, earlier));
  return input;
}

/**
 * Issues found while decoding the wire format (a wrong type, say) already name
 * their field; a second "Required" for the same field would only confuse.
 */
export function dropShadowed(issues: Issues, earlier: Issues): Issues {
  if (earlier.length === 0) return issues;
  const decoded = new Set(earlier.map((issue) => issue.path.join("\u0000")));
  return issues.filter((issue, index) => index < earlier.length || !decoded.has(issue.path.join("\u0000")));
}
