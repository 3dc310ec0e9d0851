import { sql } from "kysely";
import { DomainError } from "../domain/domain-error.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";

export interface ClosedCall {
  readonly callStart: Date;
  readonly customerId: string;
}

/**
 * Ends a started call in one statement, moving it to the customer named by
 * `customerRef` (a customer of the same tenant) when one is given. Undefined
 * when nothing was closed; `whyNotClosed` then says why. Of two concurrent
 * ends, the second waits for the first's row lock and then finds it ended.
 */
export async function closeCall(
  db: Db,
  tenant: Tenant,
  callId: string,
  customerRef: string | undefined,
  now: Date,
): Promise<ClosedCall | undefined> {
  const ref = customerRef ?? null;
  const { rows } = await sql<{ call_start: Date; customer_id: string }>`
    update calls
    set call_end = ${now}, customer_id = coalesce(target.id, calls.customer_id)
    from (
      select (select id from customers where id = ${ref}::uuid and account_id = ${tenant.accountId} and mode = ${tenant.mode})
        as id
    ) as target
    where calls.account_id = ${tenant.accountId} and calls.mode = ${tenant.mode} and calls.call_id = ${callId}
      and calls.call_end is null
      and (${ref}::uuid is null or target.id is not null)
    returning calls.call_start, calls.customer_id
  `.execute(db);
  const row = rows[0];
  return row && { callStart: row.call_start, customerId: row.customer_id };
}

/** The error for an end that closed nothing: the call was never started, has ended, or the customer is unknown. */
export async function whyNotClosed(
  db: Db,
  tenant: Tenant,
  callId: string,
  customerRef: string | undefined,
): Promise<DomainError> {
  const call = await db
    .selectFrom("calls")
    .select("call_end")
    .where("account_id", "=", tenant.accountId)
    .where("mode", "=", tenant.mode)
    .where("call_id", "=", callId)
    .executeTakeFirst();
  if (call === undefined) return new DomainError("not_found", `Call '${callId}' was never started`);
  if (call.call_end !== null) return new DomainError("failed_precondition", `Call '${callId}' has already ended`);
  return new DomainError("not_found", `Customer '${customerRef}' not found`);
}
