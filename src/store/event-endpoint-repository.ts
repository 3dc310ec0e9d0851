import type { Db } from "./database.ts";
import type { EventEndpointRow, NewEventEndpointRow } from "./schema.ts";

// An account's event endpoints: queries only.

export async function insertEventEndpoint(db: Db, row: NewEventEndpointRow): Promise<EventEndpointRow> {
  return db.insertInto("event_endpoints").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function listEventEndpointRows(db: Db, accountId: string): Promise<EventEndpointRow[]> {
  return db
    .selectFrom("event_endpoints")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

/** The endpoint; `accountId`, when given, must own it. */
export async function findEventEndpointRow(
  db: Db,
  endpointId: string,
  accountId?: string,
): Promise<EventEndpointRow | undefined> {
  return db
    .selectFrom("event_endpoints")
    .selectAll()
    .where("id", "=", endpointId)
    .$if(accountId !== undefined, (query) => query.where("account_id", "=", accountId as string))
    .executeTakeFirst();
}

/** Enables (clearing the failure run and its notice) or disables by hand. */
export async function setEventEndpointEnabled(
  db: Db,
  endpointId: string,
  enabled: boolean,
): Promise<EventEndpointRow | undefined> {
  return db
    .updateTable("event_endpoints")
    .set(
      enabled
        ? { enabled: true, disabled_reason: null, consecutive_failures: 0, failing_since: null }
        : { enabled: false, disabled_reason: "Disabled by hand" },
    )
    .where("id", "=", endpointId)
    .returningAll()
    .executeTakeFirst();
}

/** A new secret; the old one keeps signing beside it until `previousExpiresAt`. */
export async function rollEventEndpointSecret(
  db: Db,
  endpointId: string,
  secret: string,
  previousExpiresAt: Date,
): Promise<EventEndpointRow | undefined> {
  return db
    .updateTable("event_endpoints")
    .set((eb) => ({
      secret,
      previous_secret: eb.ref("secret"),
      previous_secret_expires_at: previousExpiresAt,
    }))
    .where("id", "=", endpointId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteEventEndpointRow(db: Db, endpointId: string): Promise<EventEndpointRow | undefined> {
  return db.deleteFrom("event_endpoints").where("id", "=", endpointId).returningAll().executeTakeFirst();
}
