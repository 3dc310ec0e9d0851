import { type RawBuilder, sql } from "kysely";
import type { EndCallCommand } from "../../domain/call.ts";

// The CTEs of an end's statement that save its intents and variables to the customer of `closed`.
//
// A row the customer already has is updated where the statement read it, by its ctid: the b-tree of
// (customer_id, name) is not descended again to find it, as `insert … on conflict` would for its check, one
// level deeper for each hundredfold growth of the account (docs/architecture.md, "Saved where they were read").
// Only a name the customer has no row for, or one whose row changed under the end (a concurrent end, an expiry's
// delete), goes through `insert … on conflict`, which stays the rule of what a save means.

/**
 * `end_intents`, `updated_intents` and `saved_intents`: the end's intents, as updates of the rows
 * `prior_intents` read (its `row_id`, the row's ctid) and inserts of the others. Saved open: one more attempt
 * since the last resolution; saved resolved: closed, with its resolution.
 */
export function intentSaves(intents: EndCallCommand["intents"], now: Date): RawBuilder<unknown> {
  return sql`
      end_intents as (
        select * from unnest(
          ${intents.map((i) => i.intent)}::text[],
          ${intents.map((i) => i.status ?? "open")}::text[],
          ${intents.map((i) => i.resolution?.type ?? null)}::text[],
          ${intents.map((i) => i.resolution?.externalReference ?? null)}::text[]
        ) as i (name, status, resolution_type, resolution_external_reference)
      ),
      updated_intents as (
        update intents set ${intentChanges(sql`i`, now)}
        from prior_intents p join end_intents i on i.name = p.name
        where intents.ctid = p.row_id
        returning intents.name
      ),
      saved_intents as (
        insert into intents
          (customer_id, name, status, attempt_count, resolution_type, resolution_external_reference, updated_at)
        select closed.customer_id, i.name, i.status,
          case when i.status = 'open' then 1 else 0 end,
          case when i.status = 'resolved' then i.resolution_type end,
          case when i.status = 'resolved' then i.resolution_external_reference end,
          ${now}
        from closed, end_intents i
        where not exists (select 1 from updated_intents u where u.name = i.name)
        on conflict (customer_id, name) do update set ${intentChanges(sql`excluded`, now)}
        returning 1
      )`;
}

/** What saving an intent changes in the customer's row of it, from `saved`, the end's own row of that intent. */
function intentChanges(saved: RawBuilder<unknown>, now: Date): RawBuilder<unknown> {
  return sql`
          status = ${saved}.status,
          attempt_count = case
            when ${saved}.status = 'resolved' then 0
            when intents.status = 'open' then intents.attempt_count + 1
            else 1 end,
          resolution_type = case
            when ${saved}.status = 'resolved' then ${saved}.resolution_type else intents.resolution_type end,
          resolution_external_reference = case
            when ${saved}.status = 'resolved' then ${saved}.resolution_external_reference
            else intents.resolution_external_reference end,
          updated_at = ${now}`;
}

/**
 * `end_variables`, `known_variables`, `updated_variables` and `saved_variables`: the end's variables, last
 * write wins. The customer's rows are read through the index on customer_id alone (the fence keeps the names
 * out of the lookup, which would otherwise descend the primary key once per name).
 */
export function variableSaves(variables: EndCallCommand["variables"], now: Date): RawBuilder<unknown> {
  const named = [...variables];
  return sql`
      end_variables as (
        select * from unnest(
          ${named.map(([name]) => name)}::text[],
          ${named.map(([, v]) => v.value)}::text[],
          ${named.map(([, v]) => v.source)}::text[],
          ${named.map(([, v]) => v.ttlSeconds)}::int[],
          ${named.map(([, v]) => v.requiresVerification)}::boolean[]
        ) as v (name, value, source, ttl_seconds, requires_verification)
      ),
      known_variables as (
        select k.row_id, k.name from closed cross join lateral (
          select held.ctid as row_id, held.name from variables held
          where held.customer_id = closed.customer_id
          offset 0
        ) k
      ),
      updated_variables as (
        update variables set ${variableChanges(sql`v`, now)}
        from known_variables k join end_variables v on v.name = k.name
        where variables.ctid = k.row_id
        returning variables.name
      ),
      saved_variables as (
        insert into variables
          (customer_id, name, value, source, ttl_seconds, updated_at, expires_at, requires_verification)
        select closed.customer_id, v.name, v.value, v.source, v.ttl_seconds, ${now},
          ${now}::timestamptz + make_interval(secs => v.ttl_seconds), v.requires_verification
        from closed, end_variables v
        where not exists (select 1 from updated_variables u where u.name = v.name)
        on conflict (customer_id, name) do update set ${variableChanges(sql`excluded`, now)}
        returning 1
      )`;
}

/** What saving a variable writes over the customer's row of it, from `saved`, the end's own row. */
function variableChanges(saved: RawBuilder<unknown>, now: Date): RawBuilder<unknown> {
  return sql`
          value = ${saved}.value, source = ${saved}.source, ttl_seconds = ${saved}.ttl_seconds,
          updated_at = ${now}, expires_at = ${now}::timestamptz + make_interval(secs => ${saved}.ttl_seconds),
          requires_verification = ${saved}.requires_verification`;
}
