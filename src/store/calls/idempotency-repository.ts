import { sql } from "kysely";
import { executeOnce } from "../../database/compile-once.ts";
import type { Tenant } from "../../domain/tenant.ts";
import { chargeCtes, creditsLeftColumn, NO_WRITES } from "../billing/charge.ts";
import type { Db } from "../database.ts";
import { type CallStatement, type Refused, refusedAsValue, tenantParameters } from "./call-statement.ts";

export type StoredEnd =
  | { readonly kind: "absent" }
  | { readonly kind: "mismatch" }
  | { readonly kind: "replay"; readonly response: string; readonly creditsLeft: number | null };

/**
 * The end an Idempotency-Key already holds, in one statement: absent (never
 * used, or expired), claimed with a different request (`requestHash`
 * differs), or the response to replay. A replay is a successful call like any
 * other and is billed as one, in the same statement.
 */
export async function findStoredEnd(
  db: Db,
  tenant: Tenant,
  key: string,
  requestHash: string,
  now: Date,
  statement: CallStatement,
): Promise<StoredEnd | Refused> {
  const { charge } = statement;
  const { accountId, mode } = tenantParameters(tenant);
  const sameRequest = sql`stored.request_hash = ${requestHash}`;
  const written = await refusedAsValue(() =>
    executeOnce(
      db,
      sql<{ response: string; same_request: boolean; credits_left: number | null }>`
    with stored as (
      select request_hash, response from idempotency_keys
      where account_id = ${accountId} and mode = ${mode} and key = ${key} and expires_at > ${now}
    ),
    ${chargeCtes(charge, now, sql`exists (select 1 from stored where ${sameRequest})`, NO_WRITES)}
    select stored.response, ${sameRequest} as same_request, ${creditsLeftColumn(charge, now, sameRequest)} as credits_left
    from stored
  `,
      statement.options,
    ),
  );
  if ("refused" in written) return written;
  const row = written.rows[0];
  if (row === undefined) return { kind: "absent" };
  if (!row.same_request) return { kind: "mismatch" };
  return { kind: "replay", response: row.response, creditsLeft: row.credits_left };
}
