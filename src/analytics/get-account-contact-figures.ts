import { contactPeriodIssues } from "../domain/contact-period.ts";
import { DomainError, type FieldIssue } from "../domain/domain-error.ts";
import { refuseOffendingFields } from "../domain/offending-fields.ts";
import { MODES, type Mode } from "../domain/tenant.ts";
import { repeatWindowOf } from "../store/account-repository.ts";
import type { Db } from "../store/database.ts";
import { type ContactFiguresReport, getContactFigures } from "./get-contact-figures.ts";

/** An account's figures in one mode, as the operator asks for them (the admin API, the CLI). */
export async function getAccountContactFigures(
  deps: { readonly db: Db },
  input: {
    readonly accountId: string;
    readonly mode: string;
    readonly from: string;
    readonly to: string;
    /** What the host could not decode of the request: refused with the rules' issues, in one answer. */
    readonly decodeIssues?: readonly FieldIssue[];
  },
  now: Date,
): Promise<ContactFiguresReport> {
  const issues: FieldIssue[] = [];
  if (!(MODES as readonly string[]).includes(input.mode)) {
    issues.push({ path: ["mode"], message: `Must be one of: ${MODES.join(", ")}` });
  }
  issues.push(...contactPeriodIssues(input.from, input.to));
  refuseOffendingFields(issues, input.decodeIssues);
  if ((await repeatWindowOf(deps.db, input.accountId)) === undefined) {
    throw new DomainError("not_found", `Account '${input.accountId}' not found`);
  }
  return getContactFigures(deps, { accountId: input.accountId, mode: input.mode as Mode }, input, now);
}
