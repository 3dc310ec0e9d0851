import { type RawBuilder, sql } from "kysely";
import type { EndCallCommand } from "../../domain/call.ts";
import type { NormalizedHints } from "../../domain/caller-hints.ts";
import type { Tenant } from "../../domain/tenant.ts";
import { chargeCtes, creditsLeftColumn, writesDone } from "../billing/charge.ts";
import type { Db } from "../database.ts";
import { endpointTakes, outboxInsert } from "../event-outbox.ts";
import {
  type CallStatement,
  deadlineColumn,
  isRefusal,
  type Refused,
  refuse,
  tenantParameters,
  writeToOutcome,
} from "./call-statement.ts";
import { linkDialledNumber, linkIdentifiers } from "./caller-identifiers.ts";
import { endEventRows, endEventTypes, priorIntents } from "./end-events.ts";
import { intentSaves, variableSaves } from "./end-saves.ts";

/** The writes the charge waits for (writesDone). */
const ENDED_CHARGED_AFTER = writesDone(
  "claimed",
  "identifiers",
  "dialled",
  "updated_intents",
  "saved_intents",
  "updated_variables",
  "saved_variables",
  "figures_queued",
);

export interface EndRecord {
  readonly callId: string;
  /**
   * The customer_ref the end names (lowercase UUID), when it names one: the call and its context move to
   * that customer, or to its survivor when the ref is the alias of a merged customer.
   */
  readonly customerRef?: string;
  readonly hints: NormalizedHints;
  readonly intents: EndCallCommand["intents"];
  readonly variables: EndCallCommand["variables"];
  readonly summary?: string;
  readonly now: Date;
  /** The Idempotency-Key to claim, with the request's fingerprint and the key's expiry. */
  readonly idempotency?: { readonly key: string; readonly requestHash: string; readonly expiresAt: Date };
  /**
   * True: the end's events go to the outbox in its statement. False: the statement leaves them out, and undoes
   * itself ("events-wanted") when an enabled endpoint of the tenant takes one of their types.
   */
  readonly withEvents: boolean;
}

export type EndWrite =
  /** `result`: the end's result as JSON text, the same text an Idempotency-Key replays. */
  | { readonly ended: true; readonly result: string; readonly creditsLeft: number | null }
  /** Nothing was written, for the reason `unwritten` gives. */
  | { readonly ended: false; readonly unwritten: Unwritten };

/**
 * Why an end wrote nothing. `no-open-call`: no started call of that id was open. `key-taken`: the call was open,
 * but its Idempotency-Key is held by another request. `events-wanted`: the end left its events out, and an
 * endpoint of the tenant takes them.
 */
export type Unwritten = "no-open-call" | "key-taken" | "events-wanted";

/** The SQLSTATE a statement raises to undo itself when its Idempotency-Key is taken. */
const KEY_TAKEN = "CC409";
/** The SQLSTATE a statement without the end's events raises to undo itself when an endpoint takes them. */
const EVENTS_WANTED = "CC40E";

/**
 * Everything an end does, in one statement that commits on its own. The call
 * row decides: every other part depends on `closed`, the started call this
 * end closes (moved to the customer the end names, a customer of the same
 * tenant, or the survivor its ref is an alias of; a forgotten caller's call,
 * which has no customer, is never closed here: record-forgotten.ts). Then: the Idempotency-Key is claimed with the response it will
 * replay (a key held by another request undoes the statement); identifiers
 * and the dialled number are linked to the customer; intents (saved open:
 * one more attempt since the last resolution; saved resolved: closed, with
 * its resolution) and variables (last write wins) are saved; the end is
 * billed, or undone when no credit is left; the events it reports go to the
 * outbox (src/store/calls/end-events.ts), in the same statement, so there is no
 * end without its events and no event without its end (a statement written
 * without them, `withEvents` false, undoes itself when an endpoint takes one,
 * so it commits only when they would have gone nowhere); so does the call's key,
 * to the contact figures' queue (src/jobs/contact-figures-job.ts). Of two concurrent ends, the
 * second waits for the first's row lock and then finds the call ended.
 *
 * Locks are taken customer first, then call, the order of a merge and an
 * erasure (src/store/customer-changes.ts): `owner`, the customer the end
 * saves to, is key-share locked before the call row. Taken the other way
 * round (the call row, then the customer its saved rows reference), an end
 * and a merge or an erasure of that customer could each wait for the other
 * until PostgreSQL broke the deadlock by failing one of them. An owner
 * merged away or erased while the end waited for it is gone (the lock finds
 * no row), and so is one the call was moved from meanwhile: the end then
 * closes nothing, and end-call.ts looks again.
 */
export async function recordEnd(
  db: Db,
  tenant: Tenant,
  record: EndRecord,
  statement: CallStatement,
): Promise<EndWrite | Refused> {
  const { accountId, mode } = tenantParameters(tenant);
  const { now, idempotency } = record;
  const { charge } = statement;
  const ref = record.customerRef ?? null;
  const customer = sql`closed.customer_id`;
  try {
    const written = await writeToOutcome(
      db,
      sql<{ result: string; credits_left: number | null }>`
      with owner as (
        select id from customers
        where id = (${ref === null ? customerOfOpenCall(tenant, record.callId) : customerNamed(tenant, ref)})
          and account_id = ${accountId} and mode = ${mode}
        for key share
      ),
      closed as (
        update calls
        set call_end = ${now}, customer_id = (select id from owner),
          summary = ${record.summary ?? null}::text, intents = ${callIntents(record)}::jsonb
        where calls.account_id = ${accountId} and calls.mode = ${mode} and calls.call_id = ${record.callId}
          and calls.call_end is null and calls.customer_id is not null and exists (select 1 from owner)
          ${ref === null ? sql`and calls.customer_id = (select id from owner)` : sql``}
        returning calls.call_start, calls.customer_id
      ),
      result as (${endResult(record)}),
      claimed as (${idempotency ? claimKey(tenant, record, idempotency) : sql`select null::text as key where false`}),
      identifiers as (${linkIdentifiers(tenant, customer, record.hints, now, sql`closed`)}),
      dialled as (${linkDialledNumber(customer, record.hints, now, sql`closed`)}),
      prior_intents as (${priorIntents(record)}),
      ${record.withEvents ? sql`outbox as (${outboxInsert(tenant, now, endEventRows(record))}),` : sql``}
      figures_queued as (
        insert into contact_figures_queue (account_id, mode, call_id, call_end)
        select ${accountId}, ${mode}, ${record.callId}, ${now}::timestamptz from closed
        returning 1
      ),
      ${intentSaves(record.intents, now)},
      ${variableSaves(record.variables, now)},
      ${chargeCtes(charge, now, sql`exists (select 1 from closed)`, ENDED_CHARGED_AFTER)}
      select (select response from result) as result,
        ${idempotency ? sql`case when not exists (select 1 from claimed) then ${refuse(KEY_TAKEN, "idempotency key taken")} end` : sql`null`} as key_check,
        ${creditsLeftColumn(charge, now, sql`true`)} as credits_left,
        ${eventsWantedColumn(tenant, record)} as events_check,
        ${deadlineColumn(statement.deadline)} as deadline_check
      from closed
    `,
      statement,
    );
    if ("refused" in written) return written;
    const row = written.rows[0];
    if (row === undefined) return { ended: false, unwritten: "no-open-call" };
    return { ended: true, result: row.result, creditsLeft: row.credits_left };
  } catch (error) {
    if (isRefusal(error, KEY_TAKEN)) return { ended: false, unwritten: "key-taken" };
    if (isRefusal(error, EVENTS_WANTED)) return { ended: false, unwritten: "events-wanted" };
    throw error;
  }
}

/** A column undoing a statement written without the end's events when an enabled endpoint of the tenant takes one. */
function eventsWantedColumn(tenant: Tenant, record: EndRecord): RawBuilder<unknown> {
  if (record.withEvents) return sql`null`;
  return sql`case when ${endpointTakes(tenant, endEventTypes(record))}
    then ${refuse(EVENTS_WANTED, "an endpoint takes the end's events")} end`;
}

/** The customer the open call `callId` was started for, as a scalar subquery (an end that names no customer). */
function customerOfOpenCall(tenant: Tenant, callId: string): RawBuilder<string | null> {
  const { accountId, mode } = tenantParameters(tenant);
  return sql`
    select customer_id from calls
    where account_id = ${accountId} and mode = ${mode} and call_id = ${callId} and call_end is null`;
}

/**
 * The customer `ref` names, or the survivor it is the alias of, as a scalar subquery. A merged-away customer's
 * ref is no customer's id any more, so an alias of the tenant's wins and the ref stands otherwise; `owner` checks
 * the customer's tenant as it locks it, one descent of customers' key where a union read it twice.
 */
function customerNamed(tenant: Tenant, ref: string): RawBuilder<string | null> {
  const { accountId, mode } = tenantParameters(tenant);
  return sql`
    select coalesce((
      select customer_id from customer_aliases
      where alias_id = ${ref}::uuid and account_id = ${accountId} and mode = ${mode}), ${ref}::uuid)`;
}

/** The intents the end saved, kept on the call row beside its summary; null when none. */
function callIntents(record: EndRecord): string | null {
  if (record.intents.length === 0) return null;
  return JSON.stringify(record.intents.map((i) => ({ intent: i.intent, status: i.status ?? "open" })));
}

/** The body of the CTE `result`: the end's result, built once, for the response and for the key to replay. */
function endResult(record: EndRecord): RawBuilder<unknown> {
  const { now } = record;
  return sql`
    select json_build_object(
      'callId', ${record.callId}::text,
      'customerRef', closed.customer_id,
      'callStart', closed.call_start,
      'callEnd', ${now}::timestamptz,
      'durationSeconds', extract(epoch from ${now}::timestamptz - closed.call_start)::float8,
      'intentsUpdated', ${record.intents.length}::int,
      'variablesUpdated', ${record.variables.size}::int
    )::text as response
    from closed
  `;
}

/**
 * The body of the CTE `claimed`: the key with the result it replays. An
 * expired key is claimed afresh; a live one returns no row.
 */
function claimKey(
  tenant: Tenant,
  record: EndRecord,
  idempotency: NonNullable<EndRecord["idempotency"]>,
): RawBuilder<unknown> {
  const { now } = record;
  const { accountId, mode } = tenantParameters(tenant);
  return sql`
    insert into idempotency_keys (account_id, mode, key, request_hash, response, created_at, expires_at)
    select ${accountId}, ${mode}, ${idempotency.key}, ${idempotency.requestHash}, result.response,
      ${now}, ${idempotency.expiresAt}
    from result
    on conflict (account_id, mode, key) do update set
      request_hash = excluded.request_hash, response = excluded.response,
      created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= ${now}
    returning key
  `;
}
