import { type RawBuilder, sql } from "kysely";
import type { NormalizedHints } from "../../domain/caller-hints.ts";
import type { Tenant } from "../../domain/tenant.ts";
import { identifiersOf, sortIdentifiers } from "./identifiers.ts";

// The parts of a start's and an end's statement that link what the caller
// was known by to the customer: an identifier seen with another customer
// moves to this one (the latest call is the best evidence).

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
  return sql`
    insert into customer_identifiers (account_id, mode, kind, namespace, value, customer_id, last_seen_at)
    select ${tenant.accountId}, ${tenant.mode}, w.kind, w.namespace, w.value, ${customerId}, ${now}
    from ${after ? sql`${after}, ` : sql``}unnest(
      ${identifiers.map((id) => id.kind)}::text[],
      ${identifiers.map((id) => id.namespace)}::text[],
      ${identifiers.map((id) => id.value)}::text[]
    ) as w (kind, namespace, value)
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
    on conflict (customer_id, dnis) do update set last_seen_at = excluded.last_seen_at
    returning 1
  `;
}
