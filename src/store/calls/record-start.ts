import { type RawBuilder, sql } from "kysely";
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
import { type HeldLinks, linkDialledNumber, linkIdentifiers } from "./caller-identifiers.ts";
import {
  type ContextRow,
  type ContextShare,
  type CustomerContext,
  contextColumns,
  contextOf,
  noContext,
} from "./context-columns.ts";

/** The writes the charge waits for (writesDone). */
const STARTED_CHARGED_AFTER = writesDone("customer", "identifiers", "dialled");

/**
 * What a call_id started again (its earlier call more than 30 days old) no longer holds of that call: the
 * columns its end wrote. Every start that may reuse a row sets these, remembered caller or not.
 */
export const STARTED_AGAIN = sql`call_end = null, summary = null, intents = null`;

export interface StartRecord {
  readonly callId: string;
  readonly customerId: string;
  readonly newCustomer: boolean;
  readonly hints: NormalizedHints;
  /** What of the hints the customer already holds (findCandidates): left out of the links. */
  readonly held?: HeldLinks;
  readonly now: Date;
  /** A call_id last started before this may be used again. */
  readonly reusableBefore: Date;
  /** What of the customer's context to read. */
  readonly share: ContextShare;
}

export type StartWrite =
  /** The call_id is taken: nothing was written. */
  { readonly started: false } | ({ readonly started: true; readonly creditsLeft: number | null } & CustomerContext);

/**
 * Everything a start writes, and the context it reads, in one statement that
 * commits on its own. The call row decides: when its call_id is taken, no
 * other part writes anything (each depends on the `call` row), and the start
 * is refused. Customers are created with the call; identifiers and the
 * dialled number are linked to the customer; the customer's last call moves
 * to now; the start is billed, or undone when no credit is left.
 *
 * What is known before the statement is decided in its text, not by a
 * parameter: a new customer is inserted and a known one updated, and a start
 * that shares no context reads none. PostgreSQL sets up every node of a plan
 * on each execution, the parts a parameter turns off included.
 */
export async function recordStart(
  db: Db,
  tenant: Tenant,
  record: StartRecord,
  statement: CallStatement,
): Promise<StartWrite | Refused> {
  const { accountId, mode } = tenantParameters(tenant);
  const { now, customerId } = record;
  const { charge } = statement;
  const started = sql`exists (select 1 from call)`;
  const written = await writeToOutcome(
    db,
    sql<{ started: boolean; credits_left: number | null } & ContextRow>`
    with call as (
      insert into calls (account_id, mode, call_id, customer_id, call_start, call_end, ani)
      values (${accountId}, ${mode}, ${record.callId}, ${customerId}, ${now}, null, ${record.hints.aniKey ?? null}::text)
      on conflict (account_id, mode, call_id) do update
        set customer_id = excluded.customer_id, call_start = excluded.call_start, ani = excluded.ani,
          ${STARTED_AGAIN}
        where calls.call_start < ${record.reusableBefore}
      returning call_id
    ),
    customer as (${customerWrite(tenant, record)}),
    identifiers as (${linkIdentifiers(tenant, sql`${customerId}::uuid`, record.hints, now, sql`call`, record.held)}),
    dialled as (${linkDialledNumber(sql`${customerId}::uuid`, record.hints, now, sql`call`, record.held)}),
    ${chargeCtes(charge, now, started, STARTED_CHARGED_AFTER)}
    select
      ${started} as started,
      ${record.share.readContext ? sql`${contextColumns(customerId, now, record.share)},` : sql``}
      ${creditsLeftColumn(charge, now, started)} as credits_left,
      ${deadlineColumn(statement.deadline)} as deadline_check
  `,
    statement,
  );
  if ("refused" in written) return written;
  const row = written.rows[0];
  if (!row.started) return { started: false };
  return { started: true, creditsLeft: row.credits_left, ...(record.share.readContext ? contextOf(row) : noContext()) };
}

/** The body of the CTE `customer`, once `call` was written: a new customer inserted, or a known one's last call moved. */
function customerWrite(tenant: Tenant, record: StartRecord): RawBuilder<unknown> {
  const { accountId, mode } = tenantParameters(tenant);
  const { customerId, now } = record;
  if (record.newCustomer) {
    return sql`
      insert into customers (id, account_id, mode, created_at, last_call_at)
      select ${customerId}, ${accountId}, ${mode}, ${now}, ${now} from call
      returning 1`;
  }
  return sql`
      update customers set last_call_at = ${now}
      where id = ${customerId} and exists (select 1 from call)
      returning 1`;
}
