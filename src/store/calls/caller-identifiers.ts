import { type AbortableQueryOptions, type RawBuilder, sql } from "kysely";
import { executeOnce } from "../../database/compile-once.ts";
import type { NormalizedHints } from "../../domain/caller-hints.ts";
import { DAY_MS } from "../../domain/limits.ts";
import type { Tenant } from "../../domain/tenant.ts";
import type { Db } from "../database.ts";
import { lastOf, tenantParameters } from "./call-statement.ts";

// A caller's identifiers in the store: the rows of customer_identifiers its hints make, the customers they
// point at (findCandidates, below), and the parts of a start's and an end's statement that link them, and
// the dialled number, to the customer: an identifier seen with another customer moves to this one (the
// latest call is the best evidence).
//
// A link already held by the customer and seen within the last day is left
// as it is: no row version, no WAL, no index entry. last_seen_at only orders a
// customer's identifiers in their record, to the day, and a call's end would
// otherwise rewrite every link its start had just written.

/** How stale a link's last_seen_at may grow before a call that uses it writes it again. */
const LINK_REFRESH_MS = DAY_MS;

/**
 * A link's CTE body when there is nothing to link (no hint of its kind, or all of them held): no insert in the
 * text. PostgreSQL sets up every node of a plan on each execution, rows or not, and an insert's setup opens its
 * table and every index of it; a call that links nothing (most ends, a known caller's start) would pay for it.
 */
const NOTHING_TO_LINK = sql`select 1 where false`;

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
  held?: HeldLinks,
): RawBuilder<unknown> {
  const identifiers = sortIdentifiers(identifiersOf(hints)).filter((id) => !held?.identifiers.has(identifierKey(id)));
  if (identifiers.length === 0) return NOTHING_TO_LINK;
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

/** Records that the customer called the dialled number, when the hints name one the customer does not hold. */
export function linkDialledNumber(
  customerId: RawBuilder<unknown>,
  hints: NormalizedHints,
  now: Date,
  after?: RawBuilder<unknown>,
  held?: HeldLinks,
): RawBuilder<unknown> {
  const dnis = held?.dialledNumber ? null : (hints.dnisKey ?? null);
  if (dnis === null) return NOTHING_TO_LINK;
  return sql`
    insert into customer_dnis (customer_id, dnis, last_seen_at)
    select ${customerId}, ${dnis}::text, ${now}
    ${after ? sql`from ${after} ` : sql``}where not exists (
        select 1 from customer_dnis held
        where held.customer_id = ${customerId} and held.dnis = ${dnis}::text and held.last_seen_at > ${refreshedSince(now)}
      )
    on conflict (customer_id, dnis) do update set last_seen_at = excluded.last_seen_at
    returning 1
  `;
}

/** One Date per `now`, so a statement that links both holds it once (compileOnce shares a repeated object). */
const refreshedSince = lastOf((now: Date) => new Date(now.getTime() - LINK_REFRESH_MS));

/**
 * What of a caller's hints a candidate already holds, seen within LINK_REFRESH_MS, as findCandidates read it: a
 * start for that customer has nothing to write for them, and leaves them out of its links, which would only find
 * them held again (a descent of each one's primary key). Should another call move one of them meanwhile, that
 * call's evidence is as recent as this one's.
 */
export interface HeldLinks {
  /** identifierKey of each identifier held. */
  readonly identifiers: ReadonlySet<string>;
  readonly dialledNumber: boolean;
}

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

/** An identifier as one string, its kind, namespace and value apart. */
export const identifierKey = (id: Identifier) => `${id.kind}\u0000${id.namespace}\u0000${id.value}`;

/** A fixed order, so concurrent upserts of the same rows take their locks alike and cannot deadlock. */
export function sortIdentifiers(identifiers: Identifier[]): Identifier[] {
  const keyed = identifiers.map((id) => ({ id, key: identifierKey(id) }));
  return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ id }) => id);
}

/** What one stored customer has in common with a caller's hints: the facts the score needs. */
export interface CandidateFacts {
  readonly customerId: string;
  readonly lastCallAt: Date;
  readonly aniMatch: boolean;
  readonly externalIdMatch: boolean;
  readonly customerRefMatch: boolean;
  readonly hasOpenIntent: boolean;
  readonly calledDnis: boolean;
  readonly held: HeldLinks;
}

/** The candidates, or that one of the hints' identifiers carries a "do not remember" mark. */
export type Candidates =
  | { readonly forgotten: false; readonly candidates: CandidateFacts[] }
  | { readonly forgotten: true };

/**
 * Every customer of the tenant that any hint points at, with its facts, in
 * one round trip: identifier hits by primary key, customer_ref by id (a
 * merged customer's ref names its survivor), and only customers with a call
 * since `matchableSince` (the account's retention window); and in the same
 * round trip, whether any of `forgetMeHashes` (the identifiers' keyed hashes) is marked.
 *
 * Each lookup is a probe by a whole key in a fenced subquery (a LATERAL with
 * limit 1, an exists with offset 0), so that no plan, whatever the tables'
 * statistics, scans the account's identifiers and joins the hints afterwards
 * (docs/architecture.md, "Plans that cannot degrade").
 */
export async function findCandidates(
  db: Db,
  tenant: Tenant,
  hints: NormalizedHints,
  identifiers: readonly Identifier[],
  matchableSince: Date,
  now: Date,
  forgetMeHashes: readonly string[],
  options: AbortableQueryOptions,
): Promise<Candidates> {
  if (identifiers.length === 0 && hints.customerRef === undefined) return { forgotten: false, candidates: [] };
  const { accountId, mode } = tenantParameters(tenant);
  const { rows } = await executeOnce(
    db,
    sql<{
      forgotten: boolean;
      id: string | null;
      last_call_at: Date;
      ani: boolean;
      external_id: boolean;
      customer_ref: boolean;
      has_open_intent: boolean;
      called_dnis: boolean;
      held_identifiers: number[] | null;
      held_dialled_number: boolean;
    }>`
    with wanted as (
      select * from unnest(
        ${identifiers.map((id) => id.kind)}::text[],
        ${identifiers.map((id) => id.namespace)}::text[],
        ${identifiers.map((id) => id.value)}::text[]
      ) with ordinality as w (kind, namespace, value, n)
    ),
    hits as (
      select i.customer_id, w.kind, w.n, i.last_seen_at > ${refreshedSince(now)} as fresh
      from wanted w
      cross join lateral (
        select i.customer_id, i.last_seen_at from customer_identifiers i
        where i.account_id = ${accountId} and i.mode = ${mode}
          and i.kind = w.kind and i.namespace = w.namespace and i.value = w.value
        limit 1
      ) i
      union all
      -- In the same statement as the rest: a merge that commits between two statements would
      -- otherwise leave the ref naming neither the merged customer nor its survivor.
      select coalesce(
        (select a.customer_id from customer_aliases a
         where a.alias_id = ref.id and a.account_id = ${accountId} and a.mode = ${mode}),
        ref.id
      ), 'customer_ref', null::bigint, false
      from (select ${hints.customerRef ?? null}::uuid as id) ref
      where ref.id is not null
    ),
    found as (
    select
      c.id,
      c.last_call_at,
      bool_or(h.kind = 'ani') as ani,
      bool_or(h.kind = 'external_id') as external_id,
      bool_or(h.kind = 'customer_ref') as customer_ref,
      exists (select 1 from intents i where i.customer_id = c.id and i.status = 'open' offset 0) as has_open_intent,
      array_agg(h.n) filter (where h.fresh) as held_identifiers,
      (select d.last_seen_at from customer_dnis d
       where d.customer_id = c.id and d.dnis = ${hints.dnisKey ?? null}::text offset 0) as dnis_seen_at
    from hits h
    cross join lateral (
      select c.id, c.last_call_at from customers c
      where c.id = h.customer_id and c.account_id = ${accountId} and c.mode = ${mode}
        and c.last_call_at >= ${matchableSince}
      limit 1
    ) c
    group by c.id, c.last_call_at
    )
    select exists (
        select 1 from unnest(${forgetMeHashes}::text[]) as wanted_mark (hash)
        cross join lateral (
          select 1 from forget_me_marks m
          where m.account_id = ${accountId} and m.mode = ${mode} and m.identifier_hash = wanted_mark.hash
          limit 1
        ) m
      ) as forgotten, found.id, found.last_call_at, found.ani, found.external_id, found.customer_ref,
      found.has_open_intent, found.dnis_seen_at is not null as called_dnis, found.held_identifiers,
      coalesce(found.dnis_seen_at > ${refreshedSince(now)}, false) as held_dialled_number
    from (select 1) one left join found on true
  `,
    options,
  );
  if (rows[0]?.forgotten) return { forgotten: true };
  const found = rows.filter((row): row is typeof row & { id: string } => row.id !== null);
  return {
    forgotten: false,
    candidates: found.map((row) => ({
      customerId: row.id,
      lastCallAt: row.last_call_at,
      aniMatch: row.ani,
      externalIdMatch: row.external_id,
      customerRefMatch: row.customer_ref,
      hasOpenIntent: row.has_open_intent,
      calledDnis: row.called_dnis,
      held: {
        identifiers: new Set((row.held_identifiers ?? []).map((n) => identifierKey(identifiers[Number(n) - 1]))),
        dialledNumber: row.held_dialled_number,
      },
    })),
  };
}
