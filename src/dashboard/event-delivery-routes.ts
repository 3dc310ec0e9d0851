import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { listDeliveries, RECENT_DELIVERIES, redeliver, sendTestEvent } from "../events/endpoint-deliveries.ts";
import { endpointRowToEndpoint } from "../events/event-rows.ts";
import { findOwnedEndpoint, setEndpointEnabled } from "../events/manage-endpoints.ts";
import { eventDepsOf } from "../use-case-deps.ts";
import { auditAction } from "./audit-action.ts";
import { createFlashes } from "./flash.ts";
import { field } from "./form-fields.ts";
import { orMessage } from "./messages.ts";
import { signedIn } from "./session-guard.ts";

// What an endpoint is sent: its deliveries page, a test event, a redelivery,
// and enabling or disabling it. None of these reaches a caller or changes
// data, so a member may do them on production endpoints too.

type IdParams = { Params: { id: string } };
type DeliveryParams = { Params: { id: string; deliveryId: string } };

const deliveriesPath = (endpointId: string) => `/dashboard/events/${encodeURIComponent(endpointId)}`;

export function registerEventDeliveryRoutes(scope: FastifyInstance, app: AppContext): void {
  const deps = eventDepsOf(app);
  const flashes = createFlashes(app.secrets, app.clock);

  scope.get<IdParams>("/events/:id", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const found = await orMessage(reply, async () => {
      const row = await findOwnedEndpoint(deps, request.params.id, user.account_id);
      return { endpoint: endpointRowToEndpoint(row), deliveries: await listDeliveries(deps, row.id, user.account_id) };
    });
    if (!found) return;
    return reply.view("event-deliveries.eta", {
      title: "Deliveries",
      tab: "events",
      ...found,
      limit: RECENT_DELIVERIES,
      notice: flashes.take(request, reply).notice ?? "",
    });
  });

  scope.post<IdParams>("/events/:id/test", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const sent = await orMessage(reply, () => sendTestEvent(deps, request.params.id, user.account_id));
    if (!sent) return;
    await auditAction(app, request, "test_event_sent", `${request.params.id}: ${sent.eventId}`);
    flashes.leave(request, reply, { notice: `Test event ${sent.eventId} queued` });
    return reply.redirect(deliveriesPath(request.params.id), 303);
  });

  scope.post<DeliveryParams>("/events/:id/deliveries/:deliveryId/redeliver", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const { id, deliveryId } = request.params;
    const again = await orMessage(reply, () => redeliver(deps, deliveryId, user.account_id));
    if (!again) return;
    await auditAction(app, request, "event_redelivered", `${deliveryId} → ${again.deliveryId}: ${again.eventId}`);
    flashes.leave(request, reply, { notice: `Event ${again.eventId} queued again` });
    return reply.redirect(deliveriesPath(id), 303);
  });

  // Enabling also resumes the deliveries that waited while it was disabled.
  scope.post<IdParams>("/events/:id/enabled", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const enable = field(request.body, "enabled") === "true";
    const changed = await orMessage(reply, () => setEndpointEnabled(deps, request.params.id, enable, user.account_id));
    if (!changed) return;
    await auditAction(
      app,
      request,
      enable ? "event_endpoint_enabled" : "event_endpoint_disabled",
      `${changed.endpointId} (${changed.url}, ${changed.kind})`,
    );
    flashes.leave(request, reply, { notice: `Endpoint ${changed.url} ${enable ? "enabled" : "disabled"}` });
    // The form says which page it was on: the list, or this endpoint's deliveries.
    const back =
      field(request.body, "back") === "deliveries" ? deliveriesPath(changed.endpointId) : "/dashboard/events";
    return reply.redirect(back, 303);
  });
}
