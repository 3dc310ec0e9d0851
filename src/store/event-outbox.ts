import { type RawBuilder, sql } from "kysely";
import { envelopeBase } from "../domain/events.ts";
import type { Tenant } from "../domain/tenant.ts";
import { tenantParameters } from "./calls/call-statement.ts";
import type { Db } from "./database.ts";

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
  const payload = setKeys(sql`${JSON.stringify(envelopeBase(now, tenant))}::jsonb`, {
    id: sql`ev.id`,
    type: sql`ev.type`,
    data: sql`case when ep.include_variable_values and ev.data_with_values is not null
      then ev.data_with_values else ev.data end`,
  });
  // Materialized: each event gets one id, however many endpoints it goes to.
  return sql`
    with ev as materialized (
      select 'evt_' || replace(gen_random_uuid()::text, '-', '') as id, e.* from (${events}) e
    )
    insert into event_deliveries
      (event_id, endpoint_id, event_type, payload, ordering_key, state, next_attempt_at, created_at)
    select ev.id, ep.id, ev.type,
      ${payload}::text,
      ev.ordering_key, 'pending', ${now}, ${now}
    from ev join event_endpoints ep on ${enabledEndpointOf(tenant)} and ev.type = any(ep.event_types)
    order by ev.seq, ep.id
    returning 1
  `;
}

/**
 * Whether an enabled endpoint of the tenant takes one of `types`: whether outboxInsert would write a row for an
 * event of one of them. A statement that leaves its events out checks it in its own snapshot, so it sees every
 * endpoint outboxInsert would have seen there (src/store/calls/record-end.ts).
 */
export function endpointTakes(tenant: Tenant, types: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from event_endpoints ep
    where ${enabledEndpointOf(tenant)} and ep.event_types && ${types}::text[])`;
}

/** The condition on `ep` (event_endpoints) of the tenant's enabled endpoints, for the index on them (0011). */
function enabledEndpointOf(tenant: Tenant): RawBuilder<boolean> {
  const { accountId, mode } = tenantParameters(tenant);
  return sql<boolean>`ep.account_id = ${accountId} and ep.kind = ${mode} and ep.enabled`;
}

/**
 * `json` (built in TypeScript, see src/domain/event-types/) with each of `values` set at its key: the values
 * only the statement knows as it runs (a customer it found, a time it read), so that the event is still written
 * by the change's own statement. A NULL is written as JSON null. jsonb keeps its keys in an order of its own,
 * so the payload's text does not depend on which keys were set here.
 */
export function setKeys<K extends string>(
  json: RawBuilder<unknown>,
  values: Readonly<Record<K, RawBuilder<unknown>>>,
): RawBuilder<unknown> {
  let result = json;
  for (const [key, value] of Object.entries<RawBuilder<unknown>>(values)) {
    result = sql`jsonb_set(${result}, ${sql.lit(`{${key}}`)}, coalesce(to_jsonb(${value}), 'null'::jsonb))`;
  }
  return result;
}

export interface PlainEvent {
  readonly type: string;
  readonly data: object;
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
