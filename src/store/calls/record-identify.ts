import { sql } from "kysely";
import type { NormalizedHints } from "../../domain/caller-hints.ts";
import type { Tenant } from "../../domain/tenant.ts";
import { chargeCtes, creditsLeftColumn, writesDone } from "../billing/charge.ts";
import type { Db } from "../database.ts";
import {
  type CallStatement,
  deadlineColumn,
  type Refused,
  tenantParameters,
  writeToOutcome,
} from "./call-statement.ts";
import { linkIdentifiers } from "./caller-identifiers.ts";
import {
  type ContextRow,
  type ContextShare,
  type CustomerContext,
  contextColumns,
  contextOf,
} from "./context-columns.ts";

/** The writes the charge waits for (writesDone). */
const IDENTIFIED_CHARGED_AFTER = writesDone("seen", "identifiers", "call_number");

export interface IdentifyRecord {
  readonly callId: string;
  /** The customer the call belongs to from now on. */
  readonly customerId: string;
  /** Link the hints' identifiers and the call's own number to the customer (a verified caller). */
  readonly link?: NormalizedHints;
  readonly now: Date;
  /** What of the customer's context to read. */
  readonly share: ContextShare;
}

export type IdentifyWrite =
  | { readonly moved: false }
  | ({ readonly moved: true; readonly callStart: Date; readonly creditsLeft: number | null } & CustomerContext);

/**
 * An identification in one statement that commits on its own: the open call
 * moves to the customer (a customer of the same tenant), whose last call it
 * becomes; a verified caller's identifiers and the call's number are linked
 * to them; the context is read; the call is billed, or the statement undone
 * when no credit is left. Nothing happens unless the call is still open.
 * The customer is locked before the call row (`target`, the lock `seen`
 * needs anyway), the order of a merge and an erasure: the other way round, an
 * identify moving a call of a customer being merged to the survivor, and the
 * merge, could each wait for the other. A customer merged away or erased
 * while the identify waited for it is gone: nothing moves, and
 * identify-call.ts looks again.
 */
export async function recordIdentify(
  db: Db,
  tenant: Tenant,
  record: IdentifyRecord,
  statement: CallStatement,
): Promise<IdentifyWrite | Refused> {
  const { accountId, mode } = tenantParameters(tenant);
  const { now, customerId } = record;
  const { charge } = statement;
  const moved = sql`exists (select 1 from call)`;
  const customer = sql`${customerId}::uuid`;
  const link = record.link ?? { externalIds: [] };
  const written = await writeToOutcome(
    db,
    sql<{ moved: boolean; call_start: Date | null; credits_left: number | null } & ContextRow>`
    with target as (
      select id from customers where id = ${customer} and account_id = ${accountId} and mode = ${mode}
      for no key update
    ),
    call as (
      update calls set customer_id = (select id from target)
      where account_id = ${accountId} and mode = ${mode} and call_id = ${record.callId} and call_end is null
        and exists (select 1 from target)
      returning call_start, ani
    ),
    seen as (
      update customers set last_call_at = greatest(last_call_at, (select call_start from call))
      where id = ${customer} and exists (select 1 from call)
      returning 1
    ),
    identifiers as (${linkIdentifiers(tenant, customer, link, now, sql`call`)}),
    call_number as (
      insert into customer_identifiers (account_id, mode, kind, namespace, value, customer_id, last_seen_at)
      select ${accountId}, ${mode}, 'ani', '', call.ani, ${customer}, ${now}
      from call where ${record.link !== undefined} and call.ani is not null
        and call.ani is distinct from ${link.aniKey ?? null}::text
      on conflict (account_id, mode, kind, namespace, value) do update
        set customer_id = excluded.customer_id, last_seen_at = excluded.last_seen_at
      returning 1
    ),
    ${chargeCtes(charge, now, moved, IDENTIFIED_CHARGED_AFTER)}
    select
      ${moved} as moved,
      (select call_start from call) as call_start,
      ${contextColumns(customer, now, record.share)},
      ${creditsLeftColumn(charge, now, moved)} as credits_left,
      ${deadlineColumn(statement.deadline)} as deadline_check
  `,
    statement,
  );
  if ("refused" in written) return written;
  const row = written.rows[0];
  if (!row.moved || row.call_start === null) return { moved: false };
  return { moved: true, callStart: row.call_start, creditsLeft: row.credits_left, ...contextOf(row) };
}
