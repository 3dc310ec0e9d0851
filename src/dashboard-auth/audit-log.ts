import { insertAuditEvent, listAuditEvents } from "../store/audit-repository.ts";
import type { Db } from "../store/database.ts";

// The account's security events, kept for its owner to read. Never a secret
// or a password: the detail names a key by id and prefix only.

export type AuditEventName =
  | "sign_up"
  | "sign_in"
  | "sign_in_failed"
  | "sign_out_everywhere"
  | "password_changed"
  | "password_reset_requested"
  | "password_reset"
  | "email_verified"
  | "key_created"
  | "key_rolled"
  | "key_revoked"
  | "member_invited"
  | "member_joined"
  | "member_removed"
  | "member_role_changed"
  | "invite_revoked"
  | "customer_erased"
  | "customer_forgotten"
  | "forget_me_lifted"
  | "retention_changed"
  | "repeat_window_changed"
  | "customers_merged"
  | "identifier_unlinked"
  | "integration_created"
  | "integration_deleted"
  | "event_endpoint_created"
  | "event_endpoint_enabled"
  | "event_endpoint_disabled"
  | "event_endpoint_rolled"
  | "event_endpoint_deleted"
  | "test_event_sent"
  | "event_redelivered";

export interface AuditEntry {
  readonly accountId: string;
  readonly actor: string;
  readonly event: AuditEventName;
  readonly detail?: string;
  readonly clientAddress: string;
}

export async function recordAuditEvent(db: Db, at: Date, entry: AuditEntry): Promise<void> {
  await insertAuditEvent(db, {
    account_id: entry.accountId,
    at,
    actor: entry.actor,
    event: entry.event,
    detail: entry.detail ?? "",
    client_address: entry.clientAddress,
  });
}

export async function listAccountAudit(db: Db, accountId: string) {
  const rows = await listAuditEvents(db, accountId, 200);
  return rows.map((row) => ({
    at: row.at,
    actor: row.actor,
    event: row.event,
    detail: row.detail,
    clientAddress: row.client_address,
  }));
}
