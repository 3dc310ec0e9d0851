import type { NormalizedHints } from "../domain/caller-hints.ts";
import type { Identifier } from "./customer-repository.ts";

/** The identifiers a set of hints carries, as rows of customer_identifiers. */
export function identifiersOf(hints: NormalizedHints): Identifier[] {
  const identifiers: Identifier[] = hints.externalIds.map(([namespace, value]) => ({
    kind: "external_id",
    namespace,
    value,
  }));
  if (hints.aniKey !== undefined) identifiers.push({ kind: "ani", namespace: "", value: hints.aniKey });
  return identifiers;
}
