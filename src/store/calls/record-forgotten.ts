import { sql } from "kysely";
import type { Tenant } from "../../domain/tenant.ts";
import { chargeCtes, creditsLeftColumn, NO_WRITES, writesDone } from "../billing/charge.ts";
import type { Db } from "../database.ts";
import {
  type CallStatement,
  deadlineColumn,
  type Refused,
  tenantParameters,
  writeToOutcome,
} from "./call-statement.ts";
import { STARTED_AGAIN } from "./record-start.ts";

/** The writes the charge waits for (writesDone). */
const FORGOTTEN_CHARGED_AFTER = writesDone("call");

// The calls of a caller marked "do not remember" keep their billing row only: the call_id and its times, with
// no customer and no number. Each write is one statement that bills itself, as a remembered call's does.

/**
 * The billing row of a forgotten caller's start. Started false when the call_id is taken (as for any start: a
 * call_id started less than `reusableBefore` ago).
 */
export async function recordForgottenStart(
  db: Db,
  tenant: Tenant,
  record: { readonly callId: string; readonly now: Date; readonly reusableBefore: Date },
  statement: CallStatement,
): Promise<{ readonly started: boolean; readonly creditsLeft: number | null } | Refused> {
  const { now } = record;
  const { charge } = statement;
  const { accountId, mode } = tenantParameters(tenant);
  const started = sql`exists (select 1 from call)`;
  const written = await writeToOutcome(
    db,
    sql<{ started: boolean; credits_left: number | null }>`
    with call as (
      insert into calls (account_id, mode, call_id, customer_id, call_start, call_end, ani)
      values (${accountId}, ${mode}, ${record.callId}, null, ${now}, null, null)
      on conflict (account_id, mode, call_id) do update
        set customer_id = null, call_start = excluded.call_start, ani = null, ${STARTED_AGAIN}
        where calls.call_start < ${record.reusableBefore}
      returning call_id
    ),
    ${chargeCtes(charge, now, started, FORGOTTEN_CHARGED_AFTER)}
    select ${started} as started,
      ${creditsLeftColumn(charge, now, started)} as credits_left,
      ${deadlineColumn(statement.deadline)} as deadline_check
  `,
    statement,
  );
  if ("refused" in written) return written;
  const row = written.rows[0]!;
  return { started: row.started, creditsLeft: row.credits_left };
}

export type ForgottenEnd =
  | { readonly ended: true; readonly callStart: Date; readonly callEnd: Date; readonly creditsLeft: number | null }
  | { readonly ended: false };

/**
 * Closes a forgotten caller's call, billed. A call already ended is answered again with its first end when
 * `again` holds (an end sent with an Idempotency-Key: no key is stored for such a call, since the stored
 * answer would keep the request's fingerprint). Not ended when the tenant has no such forgotten call.
 */
export async function recordForgottenEnd(
  db: Db,
  tenant: Tenant,
  record: { readonly callId: string; readonly now: Date; readonly again: boolean },
  statement: CallStatement,
): Promise<ForgottenEnd | Refused> {
  const { now } = record;
  const { charge } = statement;
  const { accountId, mode } = tenantParameters(tenant);
  const closed = sql`exists (select 1 from closed)`;
  const written = await writeToOutcome(
    db,
    sql<{ call_start: Date; call_end: Date; credits_left: number | null }>`
    with closed as (
      update calls set call_end = coalesce(call_end, ${now})
      where account_id = ${accountId} and mode = ${mode} and call_id = ${record.callId}
        and customer_id is null and (call_end is null or ${record.again})
      returning call_start, call_end
    ),
    ${chargeCtes(charge, now, closed, NO_WRITES)}
    select closed.call_start, closed.call_end,
      ${creditsLeftColumn(charge, now, sql`true`)} as credits_left,
      ${deadlineColumn(statement.deadline)} as deadline_check
    from closed
  `,
    statement,
  );
  if ("refused" in written) return written;
  const row = written.rows[0];
  if (row === undefined) return { ended: false };
  return { ended: true, callStart: row.call_start, callEnd: row.call_end, creditsLeft: row.credits_left };
}
