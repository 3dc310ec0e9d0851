import type { FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { type AuditEventName, recordAuditEvent } from "../dashboard-auth/audit-log.ts";

/** Records what the signed-in person of this request did to their account, and from which address. */
export function auditAction(
  app: AppContext,
  request: FastifyRequest,
  event: AuditEventName,
  detail: string,
): Promise<void> {
  const user = request.dashboardUser;
  // Only pages behind signedIn() change an account; anything else is a bug to hear about.
  if (user === undefined) throw new Error(`audit event ${event} outside a signed-in request`);
  return recordAuditEvent(app.database.db, app.clock.now(), {
    accountId: user.account_id,
    actor: user.email,
    event,
    detail,
    clientAddress: request.ip,
  });
}
