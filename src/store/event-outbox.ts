import { type RawBuilder, sql } from "kysely";
import { EVENTS_API_VERSION } from "../domain/events.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";
import { tenantParameters } from "./shared-parameters.ts";

// Writing events to the outbox: one row per event and subscribed endpoint,
// each a pending delivery. Always inside the statement or the transaction of
// the change the event reports, so the two commit or roll back together. An
// account without endpoints for the event writes nothing.

/**
 * A query whose rows are the events to write, with columns `seq` (the order
 * within the change), `type`, `data` (jsonb), `data_with_values` (jsonb or
 * null: the data for endpoints that opted into variable values) and
 * `ordering_key` (text or null: deliveries of one key to one endpoint go in
 * order). An event about one customer takes that customer's id as its key:
 * an erasure finds the customer's events by it (eraseCustomer).
 */
export type EventRows = RawBuilder<unknown>;

/** An INSERT (usable as a data-modifying CTE body) writing `events` to the outbox of the tenant's endpoints. */
export function outboxInsert(tenant: Tenant, now: Date, events: EventRows): RawBuilder<unknown> {
  const timestamp = now.toISOString();
  const { accountId, mode } = tenantParameters(tenant);
  // Materialized: each event gets one id, however many endpoints it goes to.
  return sql`
    with ev as materialized (
      select 'evt_' || replace(gen_random_uuid()::text, '-', '') as id, e.* from (${events}) e
    )
    insert into event_deliveries
      (event_id, endpoint_id, event_type, payload, ordering_key, state, next_attempt_at, created_at)
    select ev.id, ep.id, ev.type,
      jsonb_build_object(
        'id', ev.id, 'type', ev.type, 'timestamp', ${timestamp}::text, 'api_version', ${EVENTS_API_VERSION}::text,
        'account_id', ${accountId}::text, 'mode', ${mode}::text,
        'data', case when ep.include_variable_values and ev.data_with_values is not null
          then ev.data_with_values else ev.data end
      )::text,
      ev.ordering_key, 'pending', ${now}, ${now}
    from ev join event_endpoints ep
      on ep.account_id = ${accountId} and ep.kind = ${mode} and ep.enabled
        and ev.type = any(ep.event_types)
    order by ev.seq, ep.id
    returning 1
  `;
}

export interface PlainEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly orderingKey: string | null;
}

/** Rows for `outboxInsert` from events known before the statement runs. */
export function plainEventRows(events: readonly PlainEvent[]): EventRows {
  return sql`
    select * from unnest(
      ${events.map((_, i) => i)}::int[],
      ${events.map((e) => e.type)}::text[],
      ${events.map((e) => JSON.stringify(e.data))}::jsonb[],
      ${events.map(() => null)}::jsonb[],
      ${events.map((e) => e.orderingKey)}::text[]
    ) as e (seq, type, data, data_with_values, ordering_key)
  `;
}

/** Writes events in `db`, which is the transaction of the change they report. */
export async function enqueueEvents(db: Db, tenant: Tenant, now: Date, events: readonly PlainEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const { rows } = await sql`${outboxInsert(tenant, now, plainEventRows(events))}`.execute(db);
  return rows.length;
}
