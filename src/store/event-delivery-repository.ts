import { sql } from "kysely";
import type { Db } from "./database.ts";
import type { EventDeliveryRow } from "./schema.ts";

// The outbox and the delivery log: claiming due deliveries (several instances
// at once), recording each attempt, listing, redelivering.

export interface ClaimedDelivery {
  readonly id: string;
  readonly eventId: string;
  readonly endpointId: string;
  readonly kind: "test" | "prod";
  readonly url: string;
  readonly payload: string;
  readonly attempts: number;
  readonly createdAt: Date;
  /** The secrets to sign with: the current one, and the previous one while its grace lasts. */
  readonly secrets: readonly string[];
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints and leases them
 * until `leaseUntil` (an instance that dies mid-delivery leaves them to be
 * claimed again then). SKIP LOCKED: instances claiming at once take different
 * rows. A delivery waits while an earlier one of its endpoint and ordering
 * key is pending, so one customer's events arrive in order.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
  /** Endpoints whose deliveries are not claimed this time (they hold their share of the slots). */
  skipEndpoints: readonly string[] = [],
): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<{
    id: string;
    event_id: string;
    endpoint_id: string;
    kind: "test" | "prod";
    url: string;
    payload: string;
    attempts: number;
    created_at: Date;
    secret: string;
    previous_secret: string | null;
    previous_secret_expires_at: Date | null;
  }>`
    update event_deliveries d
    set attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}, last_attempt_at = ${now}
    from event_endpoints e
    where e.id = d.endpoint_id and d.id in (
      select c.id from event_deliveries c join event_endpoints ce on ce.id = c.endpoint_id and ce.enabled
      where c.state = 'pending' and c.next_attempt_at <= ${now}
        and c.endpoint_id <> all(${[...skipEndpoints]}::text[])
        and not exists (
          select 1 from event_deliveries p
          where p.state = 'pending' and p.endpoint_id = c.endpoint_id and p.ordering_key = c.ordering_key
            and p.id < c.id
        )
      order by c.next_attempt_at, c.id
      limit ${limit}
      for update of c skip locked
    )
    returning d.id::text as id, d.event_id, d.endpoint_id, e.kind, e.url, d.payload, d.attempts, d.created_at,
      e.secret, e.previous_secret, e.previous_secret_expires_at
  `.execute(db);
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    kind: row.kind,
    url: row.url,
    payload: row.payload,
    attempts: row.attempts,
    createdAt: new Date(row.created_at),
    secrets:
      row.previous_secret !== null &&
      row.previous_secret_expires_at !== null &&
      new Date(row.previous_secret_expires_at) > now
        ? [row.secret, row.previous_secret]
        : [row.secret],
  }));
}

export interface AttemptRecord {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly now: Date;
  readonly responseCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

/** A delivered attempt: the row leaves the outbox and the endpoint's failure run ends. */
export async function recordDelivered(db: Db, record: AttemptRecord, endpointId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("event_deliveries")
      .set({ state: "delivered", response_code: record.responseCode, latency_ms: record.latencyMs, last_error: null })
      .where("id", "=", record.deliveryId as never)
      .where("attempts", "=", record.attempt)
      .execute();
    await trx
      .updateTable("event_endpoints")
      .set({ consecutive_failures: 0, failing_since: null })
      .where("id", "=", endpointId)
      .where("consecutive_failures", ">", 0)
      .execute();
  });
}

/**
 * A failed attempt: tried again at `retryAt`, or given up when undefined.
 * Returns the endpoint's failure run (how many in a row, since when).
 */
export async function recordFailed(
  db: Db,
  record: AttemptRecord,
  endpointId: string,
  retryAt: Date | undefined,
): Promise<{ consecutiveFailures: number; failingSince: Date } | undefined> {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable("event_deliveries")
      .set({
        state: retryAt === undefined ? "failed" : "pending",
        next_attempt_at: retryAt ?? record.now,
        response_code: record.responseCode,
        latency_ms: record.latencyMs,
        last_error: record.error,
      })
      .where("id", "=", record.deliveryId as never)
      .where("attempts", "=", record.attempt)
      .execute();
    const row = await trx
      .updateTable("event_endpoints")
      .set((eb) => ({
        consecutive_failures: eb("consecutive_failures", "+", 1),
        failing_since: sql`coalesce(failing_since, ${record.now})`,
      }))
      .where("id", "=", endpointId)
      .returning(["consecutive_failures", "failing_since"])
      .executeTakeFirst();
    return row && { consecutiveFailures: row.consecutive_failures, failingSince: new Date(row.failing_since!) };
  });
}

export async function disableFailingEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  await db
    .updateTable("event_endpoints")
    .set({ enabled: false, disabled_reason: reason })
    .where("id", "=", endpointId)
    .where("enabled", "=", true)
    .execute();
}

export async function listRecentDeliveries(db: Db, endpointId: string, limit: number): Promise<EventDeliveryRow[]> {
  return db
    .selectFrom("event_deliveries")
    .selectAll()
    .select(sql<string>`id::text`.as("id"))
    .where("endpoint_id", "=", endpointId)
    .orderBy("event_deliveries.id", "desc")
    .limit(limit)
    .execute();
}

export async function findDelivery(db: Db, deliveryId: string): Promise<EventDeliveryRow | undefined> {
  return db
    .selectFrom("event_deliveries")
    .selectAll()
    .select(sql<string>`id::text`.as("id"))
    .where("id", "=", deliveryId as never)
    .executeTakeFirst();
}

/** The delivery's event again, as a new pending delivery to the same endpoint with the same event id. */
export async function insertRedelivery(db: Db, delivery: EventDeliveryRow, now: Date): Promise<string> {
  const row = await db
    .insertInto("event_deliveries")
    .values({
      event_id: delivery.event_id,
      endpoint_id: delivery.endpoint_id,
      event_type: delivery.event_type,
      payload: delivery.payload,
      ordering_key: delivery.ordering_key,
      state: "pending",
      next_attempt_at: now,
      created_at: now,
    })
    .returning(sql<string>`id::text`.as("id"))
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A test event for one endpoint, whatever types it receives. */
export async function insertTestDelivery(
  db: Db,
  endpointId: string,
  eventId: string,
  type: string,
  payload: string,
  now: Date,
): Promise<string> {
  const row = await db
    .insertInto("event_deliveries")
    .values({
      event_id: eventId,
      endpoint_id: endpointId,
      event_type: type,
      payload,
      ordering_key: null,
      state: "pending",
      next_attempt_at: now,
      created_at: now,
    })
    .returning(sql<string>`id::text`.as("id"))
    .executeTakeFirstOrThrow();
  return row.id;
}

/** How many deliveries are pending and when the oldest was written, for the metrics. */
export async function outboxStats(db: Db): Promise<{ pending: number; oldest: Date | null }> {
  const { rows } = await sql<{ pending: number; oldest: Date | null }>`
    select count(*)::int as pending, min(created_at) as oldest from event_deliveries where state = 'pending'
  `.execute(db);
  const row = rows[0];
  return { pending: row?.pending ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
}

/** Finished deliveries older than `before` go, in a bounded batch. */
export async function deleteFinishedDeliveries(db: Db, before: Date, limit: number): Promise<number> {
  const { rows } = await sql`
    delete from event_deliveries where id in (
      select id from event_deliveries where state <> 'pending' and created_at < ${before} limit ${limit}
    ) returning 1
  `.execute(db);
  return rows.length;
}
