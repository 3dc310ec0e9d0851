import { sql } from "kysely";
import type { EndCallCommand } from "../domain/call.ts";
import type { NormalizedHints } from "../domain/caller-hints.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";
import { linkDialledNumber, linkIdentifiers } from "./link-statements.ts";

export interface EndRecord {
  readonly customerId: string;
  readonly hints: NormalizedHints;
  readonly intents: EndCallCommand["intents"];
  readonly variables: EndCallCommand["variables"];
  readonly now: Date;
  /** The claimed Idempotency-Key and the response to keep under it. */
  readonly idempotency?: { readonly key: string; readonly response: string };
}

/**
 * Everything an end saves, in one statement: identifiers and the dialled
 * number linked to the customer; intents (saved open: one more attempt since
 * the last resolution; saved resolved: closed, with its resolution);
 * variables (last write wins); and the response under the idempotency key.
 */
export async function recordEnd(db: Db, tenant: Tenant, record: EndRecord): Promise<void> {
  const { accountId, mode } = tenant;
  const { customerId, now } = record;
  const intents = record.intents;
  const variables = [...record.variables];
  await sql`
    with identifiers as (${linkIdentifiers(tenant, customerId, record.hints, now)}),
    dialled as (${linkDialledNumber(customerId, record.hints, now)}),
    saved_intents as (
      insert into intents
        (customer_id, name, status, attempt_count, resolution_type, resolution_external_reference, updated_at)
      select ${customerId}, i.name, i.status,
        case when i.status = 'open' then 1 else 0 end,
        case when i.status = 'resolved' then i.resolution_type end,
        case when i.status = 'resolved' then i.resolution_reference end,
        ${now}
      from unnest(
        ${intents.map((i) => i.intent)}::text[],
        ${intents.map((i) => i.status ?? "open")}::text[],
        ${intents.map((i) => i.resolution?.type ?? null)}::text[],
        ${intents.map((i) => i.resolution?.externalReference ?? null)}::text[]
      ) as i (name, status, resolution_type, resolution_reference)
      on conflict (customer_id, name) do update set
        status = excluded.status,
        attempt_count = case
          when excluded.status = 'resolved' then 0
          when intents.status = 'open' then intents.attempt_count + 1
          else 1 end,
        resolution_type = case
          when excluded.status = 'resolved' then excluded.resolution_type else intents.resolution_type end,
        resolution_external_reference = case
          when excluded.status = 'resolved' then excluded.resolution_external_reference
          else intents.resolution_external_reference end,
        updated_at = excluded.updated_at
    ),
    saved_variables as (
      insert into variables (customer_id, name, value, source, ttl_seconds, updated_at, expires_at)
      select ${customerId}, v.name, v.value, v.source, v.ttl_seconds, ${now},
        ${now}::timestamptz + make_interval(secs => v.ttl_seconds)
      from unnest(
        ${variables.map(([name]) => name)}::text[],
        ${variables.map(([, v]) => v.value)}::text[],
        ${variables.map(([, v]) => v.source)}::text[],
        ${variables.map(([, v]) => v.ttlSeconds)}::int[]
      ) as v (name, value, source, ttl_seconds)
      on conflict (customer_id, name) do update set
        value = excluded.value, source = excluded.source, ttl_seconds = excluded.ttl_seconds,
        updated_at = excluded.updated_at, expires_at = excluded.expires_at
    )
    update idempotency_keys set response = ${record.idempotency?.response ?? null}
    where account_id = ${accountId} and mode = ${mode} and key = ${record.idempotency?.key ?? null}::text
  `.execute(db);
}
