import { sql } from "kysely";
import type { OpenIntent, StoredVariable } from "../domain/call.ts";
import type { NormalizedHints } from "../domain/caller-hints.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";
import { identifiersOf, sortIdentifiers } from "./identifiers.ts";

export interface StartRecord {
  readonly callId: string;
  readonly customerId: string;
  readonly newCustomer: boolean;
  readonly hints: NormalizedHints;
  readonly now: Date;
  /** A call_id last started before this may be used again. */
  readonly reusableBefore: Date;
  /** Read the customer's open intents and live variables. */
  readonly readContext: boolean;
}

export type StartWrite =
  | { readonly started: false }
  | {
      readonly started: true;
      readonly openIntents: OpenIntent[];
      readonly variables: Record<string, StoredVariable>;
    };

/**
 * Everything a start writes, and the context it reads, in one statement.
 * The call row decides: when its call_id is taken, no other part writes
 * anything (each depends on the `call` row), and the start is refused.
 * Customers are created with the call; identifiers and the dialled number
 * are linked to the customer; the customer's last call moves to now.
 */
export async function recordStart(db: Db, tenant: Tenant, record: StartRecord): Promise<StartWrite> {
  const identifiers = sortIdentifiers(identifiersOf(record.hints));
  const { accountId, mode } = tenant;
  const { now, customerId } = record;
  const { rows } = await sql<{
    started: boolean;
    open_intents: OpenIntent[];
    variables: Record<string, StoredVariable>;
  }>`
    with call as (
      insert into calls (account_id, mode, call_id, customer_id, call_start, call_end)
      values (${accountId}, ${mode}, ${record.callId}, ${customerId}, ${now}, null)
      on conflict (account_id, mode, call_id) do update
        set customer_id = excluded.customer_id, call_start = excluded.call_start, call_end = null
        where calls.call_start < ${record.reusableBefore}
      returning call_id
    ),
    new_customer as (
      insert into customers (id, account_id, mode, created_at, last_call_at)
      select ${customerId}, ${accountId}, ${mode}, ${now}, ${now} from call where ${record.newCustomer}
    ),
    seen_customer as (
      update customers set last_call_at = ${now}
      where id = ${customerId} and not ${record.newCustomer} and exists (select 1 from call)
    ),
    identifiers as (
      insert into customer_identifiers (account_id, mode, kind, namespace, value, customer_id, last_seen_at)
      select ${accountId}, ${mode}, w.kind, w.namespace, w.value, ${customerId}, ${now}
      from call, unnest(
        ${identifiers.map((id) => id.kind)}::text[],
        ${identifiers.map((id) => id.namespace)}::text[],
        ${identifiers.map((id) => id.value)}::text[]
      ) as w (kind, namespace, value)
      on conflict (account_id, mode, kind, namespace, value) do update
        set customer_id = excluded.customer_id, last_seen_at = excluded.last_seen_at
    ),
    dialled as (
      insert into customer_dnis (customer_id, dnis, last_seen_at)
      select ${customerId}, ${record.hints.dnisKey ?? null}::text, ${now}
      from call where ${record.hints.dnisKey ?? null}::text is not null
      on conflict (customer_id, dnis) do update set last_seen_at = excluded.last_seen_at
    )
    select
      exists (select 1 from call) as started,
      coalesce((
        select json_agg(json_build_object('intent', name, 'attemptCount', attempt_count) order by updated_at desc, name)
        from intents where customer_id = ${customerId} and status = 'open' and ${record.readContext}
      ), '[]') as open_intents,
      coalesce((
        select json_object_agg(name, json_build_object('value', value, 'source', source, 'ttlSeconds', ttl_seconds) order by name)
        from variables where customer_id = ${customerId} and expires_at > ${now} and ${record.readContext}
      ), '{}') as variables
  `.execute(db);
  const row = rows[0];
  if (!row.started) return { started: false };
  return { started: true, openIntents: row.open_intents, variables: row.variables };
}
