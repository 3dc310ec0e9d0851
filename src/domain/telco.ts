import { type Attestation, isAttestation, lessTrusting } from "./attestation.ts";
import type { StartCallInput } from "./call.ts";
import { checkText, type Issues } from "./field-checks.ts";
import { MAX_VERSTAT_LENGTH } from "./limits.ts";
import { readVerstat } from "./verstat.ts";

// A start's telco attestation fields: checked, then read into one attestation.

type TelcoAttestationInput = Pick<StartCallInput, "attestation" | "verstat">;

export function checkTelcoAttestation(issues: Issues, input: TelcoAttestationInput): void {
  if (input.attestation !== undefined && !isAttestation(input.attestation)) {
    issues.push({ path: ["telco", "attestation"], message: "Expected one of: A, B, C, failed, none" });
  }
  const verstat = input.verstat;
  if (verstat === undefined || verstat === "") return;
  const before = issues.length;
  checkText(issues, ["telco", "verstat"], verstat, MAX_VERSTAT_LENGTH);
  if (issues.length === before && readVerstat(verstat) === undefined) {
    issues.push({
      path: ["telco", "verstat"],
      message: "Not a verification status this service reads (see docs/identity.md for the forms it does)",
    });
  }
}

/**
 * The call's attestation from validated fields: `attestation`, the reading of `verstat`, or when both are
 * sent the one that vouches less (Bandwidth gives its check and its level apart). An empty verstat is what
 * a platform's template gives for a call without one: no data.
 */
export function telcoAttestation(input: TelcoAttestationInput): Attestation | undefined {
  const stated = input.attestation !== undefined && isAttestation(input.attestation) ? input.attestation : undefined;
  const read = input.verstat ? readVerstat(input.verstat) : undefined;
  return lessTrusting(stated, read);
}
