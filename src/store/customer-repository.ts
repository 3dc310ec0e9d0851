import { sql } from "kysely";
import type { CallIntent, OpenIntent } from "../domain/call.ts";
import {
  type CustomerIdentifier,
  type CustomerRecord,
  type CustomerSummary,
  RECORD_CALLS,
} from "../domain/customer.ts";
import type { Tenant } from "../domain/tenant.ts";
import { openIntentsAndVariables, type VariablesJson } from "./calls/context-columns.ts";
import type { Db } from "./database.ts";

// Reads of customer records, and the lookups by identifier. The writes
// (erase, merge, unlink) live in customer-changes.ts.

/**
 * The live customer a ref names in the tenant: the customer itself, or the
 * survivor of a merge when the ref is an alias; undefined when neither.
 */
export async function resolveCustomerRef(db: Db, tenant: Tenant, ref: string): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`
    select id from customers where id = ${ref}::uuid and account_id = ${tenant.accountId} and mode = ${tenant.mode}
    union all
    select customer_id from customer_aliases
    where alias_id = ${ref}::uuid and account_id = ${tenant.accountId} and mode = ${tenant.mode}
    limit 1
  `.execute(db);
  return rows[0]?.id;
}

/** The record of a live customer of the tenant, in one round trip. */
export async function readCustomerRecord(
  db: Db,
  tenant: Tenant,
  customerId: string,
  now: Date,
): Promise<CustomerRecord | undefined> {
  const { rows } = await sql<{
    id: string;
    created_at: Date;
    last_call_at: Date;
    ani: string[];
    external_ids: [string, string][];
    open_intents: OpenIntent[];
    resolved_intents: {
      intent: string;
      resolutionType: string | null;
      resolutionExternalReference: string | null;
      resolvedAt: string;
    }[];
    variables: VariablesJson;
    calls: {
      callId: string;
      callStart: string;
      callEnd: string | null;
      summary: string | null;
      intents: CallIntent[] | null;
    }[];
  }>`
    select c.id, c.created_at, c.last_call_at,
      coalesce((
        select json_agg(value order by last_seen_at desc, value)
        from customer_identifiers where customer_id = c.id and kind = 'ani'
      ), '[]') as ani,
      coalesce((
        select json_agg(json_build_array(namespace, value) order by namespace, value)
        from customer_identifiers where customer_id = c.id and kind = 'external_id'
      ), '[]') as external_ids,
      coalesce((
        select json_agg(json_build_object('intent', name, 'resolutionType', resolution_type,
          'resolutionExternalReference', resolution_external_reference, 'resolvedAt', updated_at)
          order by updated_at desc, name)
        from intents where customer_id = c.id and status = 'resolved'
      ), '[]') as resolved_intents,
      ${openIntentsAndVariables(sql`c.id`, now, { readContext: true, verified: true })},
      coalesce((
        select json_agg(json_build_object('callId', call_id, 'callStart', call_start, 'callEnd', call_end,
          'summary', summary, 'intents', intents) order by call_start desc, call_id)
        from (
          select call_id, call_start, call_end, summary, intents from calls where customer_id = c.id
          order by call_start desc, call_id limit ${RECORD_CALLS}
        ) latest
      ), '[]') as calls
    from customers c
    where c.id = ${customerId}::uuid and c.account_id = ${tenant.accountId} and c.mode = ${tenant.mode}
  `.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    customerRef: row.id,
    createdAt: row.created_at,
    lastCallAt: row.last_call_at,
    ani: row.ani,
    externalIds: row.external_ids,
    openIntents: row.open_intents,
    resolvedIntents: row.resolved_intents.map((intent) => ({ ...intent, resolvedAt: new Date(intent.resolvedAt) })),
    variables: row.variables.shared,
    calls: row.calls.map((call) => ({
      callId: call.callId,
      callStart: new Date(call.callStart),
      callEnd: call.callEnd === null ? null : new Date(call.callEnd),
      summary: call.summary,
      intents: call.intents ?? [],
    })),
  };
}

/** The customers of the tenant that hold the identifier (at most one: an identifier names one customer). */
export async function findCustomersByIdentifier(
  db: Db,
  tenant: Tenant,
  identifier: CustomerIdentifier,
): Promise<CustomerSummary[]> {
  const rows = await db
    .selectFrom("customer_identifiers as i")
    .innerJoin("customers as c", "c.id", "i.customer_id")
    .select(["c.id", "c.last_call_at"])
    .where("i.account_id", "=", tenant.accountId)
    .where("i.mode", "=", tenant.mode)
    .where("i.kind", "=", identifier.kind)
    .where("i.namespace", "=", identifier.namespace)
    .where("i.value", "=", identifier.value)
    .orderBy("c.last_call_at", "desc")
    .execute();
  return rows.map((row) => ({ customerRef: row.id, lastCallAt: row.last_call_at }));
}
