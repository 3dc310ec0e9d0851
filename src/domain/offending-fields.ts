import { type FieldIssue, validationError } from "./domain-error.ts";
import { dropShadowed } from "./validate-start.ts";

/**
 * Refuses a request naming every offending field at once: what the host could not decode (a wrong type, an
 * unknown field, an enum value outside its set) first, then what the request's own rules find in the rest, less
 * what a decode issue already names (a field dropped as undecodable is not "Required" as well). Nothing when
 * both are empty, so the caller goes on.
 */
export function refuseOffendingFields(
  ruleIssues: readonly FieldIssue[],
  decodeIssues: readonly FieldIssue[] = [],
): void {
  const issues = dropShadowed([...decodeIssues, ...ruleIssues], decodeIssues);
  if (issues.length > 0) throw validationError(issues);
}
