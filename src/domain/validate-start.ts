import type { StartCallInput } from "./call.ts";
import { type FieldIssue, validationError } from "./domain-error.ts";
import { checkRequired, checkText, type Issues } from "./field-checks.ts";
import { MAX_CALL_ID_LENGTH } from "./limits.ts";
import { checkTelcoAttestation } from "./telco.ts";
import { checkIdentityHints, hasIdentifier } from "./validate-hints.ts";

/** Throws a DomainError listing every problem; returns the input when valid. */
export function validateStartCall(input: StartCallInput, earlier: readonly FieldIssue[] = []): StartCallInput {
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
 * their field; a second "Required" for the same field, or a complaint about
 * the object holding it ("Must contain at least one of ani…" once a wrong ani
 * was dropped), would only confuse.
 */
export function dropShadowed(issues: Issues, earlier: readonly FieldIssue[]): Issues {
  if (earlier.length === 0) return issues;
  // A body that could not be read at all (path []) leaves nothing to validate.
  const shadowed = (issue: FieldIssue) =>
    earlier.some(
      (decoded) =>
        decoded.path.length === 0 ||
        (issue.path.length > 0 && issue.path.every((segment, i) => decoded.path[i] === segment)),
    );
  return issues.filter((issue, index) => index < earlier.length || !shadowed(issue));
}
