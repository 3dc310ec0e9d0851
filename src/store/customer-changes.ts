import { sql } from "kysely";
import type { CustomerIdentifier } from "../domain/customer.ts";
import { customerErased, customerErasedData } from "../domain/event-types/customer-erased.ts";
import { customerMerged, customerMergedData } from "../domain/event-types/customer-merged.ts";
import type { Tenant } from "../domain/tenant.ts";
import type { Db } from "./database.ts";
import { enqueueEvents, outboxInsert, plainEventRows } from "./event-outbox.ts";

// The writes of the customer operations: erase, merge, unlink. Each commits
// as one unit, and each touches only rows of the given tenant.

/**
 * Deletes the customer in one statement. The foreign keys take its
 * identifiers, dialled numbers, calls, intents, variables and aliases with
 * it; the stored end responses that name it (or one of its aliases) go too,
 * and so do its events (of it or an alias) in the outbox and the delivery
 * log, delivered or pending, to every endpoint of the tenant: what was sent
 * is the receiver's copy, what we hold goes; so do its calls' ends still
 * queued for the contact figures (their call ids). customer.erased (the ref alone)
 * goes to the outbox; the delete does not see it, as every CTE of a
 * statement reads the rows as they were before the statement.
 * False when the tenant has no such customer.
 */
export async function eraseCustomer(db: Db, tenant: Tenant, customerId: string, now: Date): Promise<boolean> {
  const erased = plainEventRows([
    { type: customerErased.type, data: customerErasedData(customerId), orderingKey: customerId },
  ]);
  const { rows } = await sql<{ id: string }>`
    with gone as (
      delete from customers
      where id = ${customerId}::uuid and account_id = ${tenant.accountId} and mode = ${tenant.mode}
      returning id
    ),
    refs as (
      select id::text as ref from gone
      union all
      select alias_id::text from customer_aliases where customer_id = ${customerId}::uuid
    ),
    replies as (
      delete from idempotency_keys
      where account_id = ${tenant.accountId} and mode = ${tenant.mode} and response is not null
        and (response::json ->> 'customerRef') in (select ref from refs)
      returning 1
    ),
    events as (
      delete from event_deliveries
      where ordering_key in (select ref from refs) and exists (select 1 from gone)
        and endpoint_id in (
          select id from event_endpoints where account_id = ${tenant.accountId} and kind = ${tenant.mode}
        )
      returning 1
    ),
    figures_queued as (
      delete from contact_figures_queue
      where (account_id, mode, call_id) in (
        select account_id, mode, call_id from calls
        where customer_id = ${customerId}::uuid and account_id = ${tenant.accountId} and mode = ${tenant.mode}
      ) and exists (select 1 from gone)
      returning 1
    ),
    outbox as (${outboxInsert(tenant, now, sql`select * from (${erased}) e where exists (select 1 from gone)`)})
    select id from gone
  `.execute(db);
  return rows.length > 0;
}

/**
 * Moves everything of customer `fromId` to `survivorId` and leaves `fromId`
 * (and the aliases it had) as aliases of the survivor, in one transaction
 * that locks both customers first (in id order, so two merges cannot
 * deadlock). Identifiers, calls and aliases move; dialled numbers keep the
 * latest sighting; intents of one name combine (see mergeIntents); of two
 * variables of one name the newer write wins; customer.merged goes to the
 * outbox; `bill` runs last, inside the
 * transaction. False when either customer is gone.
 */
export async function mergeCustomers(
  db: Db,
  tenant: Tenant,
  survivorId: string,
  fromId: string,
  now: Date,
  bill: (trx: Db) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockBoth(trx, tenant, survivorId, fromId))) return false;
    await mergeLocked(trx, tenant, survivorId, fromId, now);
    await bill(trx);
    return true;
  });
}

/**
 * A customer a verified identification left with no identifier and no call
 * (a start from a number nobody knew, then the caller proved to be someone
 * else) becomes an alias of that someone, as a merge would make it: the ref
 * the start answered with goes on resolving, to the customer it turned out to
 * be. Nothing happens when it holds anything by now, or either is gone.
 */
export async function foldEmptiedCustomer(
  db: Db,
  tenant: Tenant,
  emptiedId: string,
  intoId: string,
  now: Date,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockBoth(trx, tenant, intoId, emptiedId))) return false;
    const { rows } = await sql<{ held: boolean }>`
      select exists (select 1 from calls where customer_id = ${emptiedId}::uuid)
        or exists (select 1 from customer_identifiers where customer_id = ${emptiedId}::uuid) as held
    `.execute(trx);
    if (rows[0]?.held !== false) return false;
    await mergeLocked(trx, tenant, intoId, emptiedId, now);
    return true;
  });
}

/** Locks both customers of the tenant, in id order so two merges cannot deadlock; false when either is gone. */
async function lockBoth(trx: Db, tenant: Tenant, oneId: string, otherId: string): Promise<boolean> {
  const { rows: locked } = await sql<{ id: string }>`
    select id from customers
    where id in (${oneId}::uuid, ${otherId}::uuid) and account_id = ${tenant.accountId} and mode = ${tenant.mode}
    order by id for update
  `.execute(trx);
  return locked.length === 2;
}

/** The merge's writes, both customers locked. */
async function mergeLocked(trx: Db, tenant: Tenant, survivorId: string, fromId: string, now: Date): Promise<void> {
  const [s, f] = [sql`${survivorId}::uuid`, sql`${fromId}::uuid`];
  await sql`update customer_identifiers set customer_id = ${s} where customer_id = ${f}`.execute(trx);
  await sql`update calls set customer_id = ${s} where customer_id = ${f}`.execute(trx);
  await sql`
    insert into customer_dnis (customer_id, dnis, last_seen_at)
    select ${s}, dnis, last_seen_at from customer_dnis where customer_id = ${f}
    on conflict (customer_id, dnis) do update
      set last_seen_at = greatest(customer_dnis.last_seen_at, excluded.last_seen_at)
  `.execute(trx);
  await mergeIntents(trx, survivorId, fromId);
  await sql`
    insert into variables
      (customer_id, name, value, source, ttl_seconds, updated_at, expires_at, requires_verification)
    select ${s}, name, value, source, ttl_seconds, updated_at, expires_at, requires_verification
    from variables where customer_id = ${f}
    on conflict (customer_id, name) do update set
      value = excluded.value, source = excluded.source, ttl_seconds = excluded.ttl_seconds,
      updated_at = excluded.updated_at, expires_at = excluded.expires_at,
      requires_verification = excluded.requires_verification
      where excluded.updated_at > variables.updated_at
  `.execute(trx);
  await sql`update customer_aliases set customer_id = ${s} where customer_id = ${f}`.execute(trx);
  await sql`
    insert into customer_aliases (alias_id, account_id, mode, customer_id, merged_at)
    values (${f}, ${tenant.accountId}, ${tenant.mode}, ${s}, ${now})
  `.execute(trx);
  await sql`
    update customers s set
      created_at = least(s.created_at, f.created_at), last_call_at = greatest(s.last_call_at, f.last_call_at)
    from customers f where s.id = ${s} and f.id = ${f}
  `.execute(trx);
  // What did not move (dialled numbers, intents and variables it shared with the survivor) goes with it.
  await sql`delete from customers where id = ${f}`.execute(trx);
  await enqueueEvents(trx, tenant, now, [
    { type: customerMerged.type, data: customerMergedData(survivorId, fromId), orderingKey: survivorId },
  ]);
}

/**
 * Intents of one name on both customers become one: the newer one's status
 * and resolution stand, except that an open intent wins over a resolved one
 * no newer than it; an open result keeps the attempts of both (a resolved
 * intent has none).
 */
async function mergeIntents(db: Db, survivorId: string, fromId: string): Promise<void> {
  const incomingWins = sql`(case
    when excluded.status = intents.status then excluded.updated_at > intents.updated_at
    when excluded.status = 'open' then excluded.updated_at >= intents.updated_at
    else excluded.updated_at > intents.updated_at end)`;
  await sql`
    insert into intents
      (customer_id, name, status, attempt_count, resolution_type, resolution_external_reference, updated_at)
    select ${survivorId}::uuid, name, status, attempt_count, resolution_type, resolution_external_reference, updated_at
    from intents where customer_id = ${fromId}::uuid
    on conflict (customer_id, name) do update set
      status = case when ${incomingWins} then excluded.status else intents.status end,
      attempt_count = case when (case when ${incomingWins} then excluded.status else intents.status end) = 'open'
        then intents.attempt_count + excluded.attempt_count else 0 end,
      resolution_type = case when ${incomingWins} then excluded.resolution_type else intents.resolution_type end,
      resolution_external_reference = case when ${incomingWins}
        then excluded.resolution_external_reference else intents.resolution_external_reference end,
      updated_at = greatest(intents.updated_at, excluded.updated_at)
  `.execute(db);
}

/** Removes one identifier from the customer, billed in the same transaction; false when the customer does not hold it. */
export async function unlinkIdentifier(
  db: Db,
  tenant: Tenant,
  customerId: string,
  identifier: CustomerIdentifier,
  bill: (trx: Db) => Promise<void>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .deleteFrom("customer_identifiers")
      .where("account_id", "=", tenant.accountId)
      .where("mode", "=", tenant.mode)
      .where("kind", "=", identifier.kind)
      .where("namespace", "=", identifier.namespace)
      .where("value", "=", identifier.value)
      .where("customer_id", "=", customerId)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) return false;
    await bill(trx);
    return true;
  });
}
