import type { NormalizedHints } from "../../domain/caller-hints.ts";

export interface Identifier {
  readonly kind: "ani" | "external_id";
  /** The external id's key; empty for ani. */
  readonly namespace: string;
  readonly value: string;
}

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

/** A fixed order, so concurrent upserts of the same rows take their locks alike and cannot deadlock. */
export function sortIdentifiers(identifiers: Identifier[]): Identifier[] {
  const key = (id: Identifier) => `${id.kind}\u0000${id.namespace}\u0000${id.value}`;
  return [...identifiers].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
