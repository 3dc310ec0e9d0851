import type { Db } from "./database.ts";
import type { AuditEventRow } from "./schema.ts";

export interface NewAuditEvent {
  readonly account_id: string;
  readonly at: Date;
  readonly actor: string;
  readonly event: string;
  readonly detail: string;
  readonly client_address: string;
}

export async function insertAuditEvent(db: Db, event: NewAuditEvent): Promise<void> {
  await db.insertInto("audit_events").values(event).execute();
}

export async function listAuditEvents(db: Db, accountId: string, limit: number): Promise<AuditEventRow[]> {
  return db
    .selectFrom("audit_events")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}
