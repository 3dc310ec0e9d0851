import { type RawBuilder, sql } from "kysely";
import type { NormalizedHints } from "../../domain/caller-hints.ts";
import { DAY_MS } from "../../domain/limits.ts";
import type { Tenant } from "../../domain/tenant.ts";
import { lastOf, tenantParameters } from "./call-statement.ts";

// The caller's identifiers as rows of customer_identifiers (below), and the parts of a start's and an end's
// statement that link them, and the dialled number, to the customer: an identifier seen with another customer
// moves to this one (the latest call is the best evidence).
//
// A link already held by the customer and seen within the last day is left
// as it is: no row version, no WAL, no index entry. last_seen_at only orders a
// customer's identifiers in their record, to the day, and a call's end would
// otherwise rewrite every link its start had just written.

/** How stale a link's last_seen_at may grow before a call that uses it writes it again. */
const LINK_REFRESH_MS = DAY_MS;

/**
 * `insert … on conflict` of the hints' identifiers for the customer, as one
 * data-modifying CTE body. `customerId` is an expression (a parameter, or a
 * column of `after`). With `after`, rows are produced only when that CTE
 * returned a row.
 */
export function linkIdentifiers(
  tenant: Tenant,
  customerId: RawBuilder<unknown>,
  hints: NormalizedHints,
  now: Date,
  after?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const identifiers = sortIdentifiers(identifiersOf(hints));
  const { accountId, mode } = tenantParameters(tenant);
  return sql`
    insert into customer_identifiers (account_id, mode, kind, namespace, value, customer_id, last_seen_at)
    select ${accountId}, ${mode}, w.kind, w.namespace, w.value, ${customerId}, ${now}
    from ${after ? sql`${after}, ` : sql``}unnest(
      ${identifiers.map((id) => id.kind)}::text[],
      ${identifiers.map((id) => id.namespace)}::text[],
      ${identifiers.map((id) => id.value)}::text[]
    ) as w (kind, namespace, value)
    where not exists (
      select 1 from customer_identifiers held
      where held.account_id = ${accountId} and held.mode = ${mode} and held.kind = w.kind
        and held.namespace = w.namespace and held.value = w.value
        and held.customer_id = ${customerId} and held.last_seen_at > ${refreshedSince(now)}
      offset 0
    )
    on conflict (account_id, mode, kind, namespace, value) do update
      set customer_id = excluded.customer_id, last_seen_at = excluded.last_seen_at
    returning 1
  `;
}

/** Records that the customer called the dialled number, when the hints name one. */
export function linkDialledNumber(
  customerId: RawBuilder<unknown>,
  hints: NormalizedHints,
  now: Date,
  after?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const dnis = hints.dnisKey ?? null;
  return sql`
    insert into customer_dnis (customer_id, dnis, last_seen_at)
    select ${customerId}, ${dnis}::text, ${now}
    ${after ? sql`from ${after} ` : sql``}where ${dnis}::text is not null
      and not exists (
        select 1 from customer_dnis held
        where held.customer_id = ${customerId} and held.dnis = ${dnis}::text and held.last_seen_at > ${refreshedSince(now)}
      )
    on conflict (customer_id, dnis) do update set last_seen_at = excluded.last_seen_at
    returning 1
  `;
}

/** One Date per `now`, so a statement that links both holds it once (compileOnce shares a repeated object). */
const refreshedSince = lastOf((now: Date) => new Date(now.getTime() - LINK_REFRESH_MS));

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
