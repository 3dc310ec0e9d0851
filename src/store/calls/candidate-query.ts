import { type AbortableQueryOptions, sql } from "kysely";
import { executeOnce } from "../../database/compile-once.ts";
import type { NormalizedHints } from "../../domain/caller-hints.ts";
import type { Tenant } from "../../domain/tenant.ts";
import type { Db } from "../database.ts";
import { tenantParameters } from "./call-statement.ts";
import type { Identifier } from "./link-statements.ts";

/** What one stored customer has in common with a caller's hints: the facts the score needs. */
export interface CandidateFacts {
  readonly customerId: string;
  readonly lastCallAt: Date;
  readonly aniMatch: boolean;
  readonly externalIdMatch: boolean;
  readonly customerRefMatch: boolean;
  readonly hasOpenIntent: boolean;
  readonly calledDnis: boolean;
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
    }>`
    with wanted as (
      select * from unnest(
        ${identifiers.map((id) => id.kind)}::text[],
        ${identifiers.map((id) => id.namespace)}::text[],
        ${identifiers.map((id) => id.value)}::text[]
      ) as w (kind, namespace, value)
    ),
    hits as (
      select i.customer_id, w.kind
      from wanted w
      cross join lateral (
        select i.customer_id from customer_identifiers i
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
      ), 'customer_ref'
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
      exists (select 1 from customer_dnis d where d.customer_id = c.id and d.dnis = ${hints.dnisKey ?? null}::text offset 0)
        as called_dnis
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
      ) as forgotten, found.*
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
    })),
  };
}
