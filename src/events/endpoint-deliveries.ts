import { randomUUID } from "node:crypto";
import { DomainError } from "../domain/domain-error.ts";
import { type EventDelivery, eventEnvelope, TEST_EVENT_TYPE } from "../domain/events.ts";
import {
  findDelivery,
  insertRedelivery,
  insertTestDelivery,
  listRecentDeliveries,
} from "../store/event-delivery-repository.ts";
import type { EventDeps } from "./event-deps.ts";
import { deliveryRowToDelivery } from "./event-rows.ts";
import { findOwnedEndpoint } from "./manage-endpoints.ts";

// An endpoint's deliveries: the recent ones, a test event, a redelivery.

export const RECENT_DELIVERIES = 50;

export async function listDeliveries(
  deps: EventDeps,
  endpointId: string,
  ownerAccountId?: string,
): Promise<EventDelivery[]> {
  await findOwnedEndpoint(deps, endpointId, ownerAccountId);
  return (await listRecentDeliveries(deps.db, endpointId, RECENT_DELIVERIES)).map(deliveryRowToDelivery);
}

/** A test event to this endpoint alone, whatever types it receives (and even while disabled, it waits). */
export async function sendTestEvent(
  deps: EventDeps,
  endpointId: string,
  ownerAccountId?: string,
): Promise<{ deliveryId: string; eventId: string }> {
  const endpoint = await findOwnedEndpoint(deps, endpointId, ownerAccountId);
  const now = deps.clock.now();
  const eventId = `evt_${randomUUID().replaceAll("-", "")}`;
  const envelope = eventEnvelope(
    eventId,
    TEST_EVENT_TYPE,
    now,
    { accountId: endpoint.account_id, mode: endpoint.kind },
    { endpoint_id: endpoint.id, message: "A test event from Caller Context" },
  );
  const id = await insertTestDelivery(deps.db, endpoint.id, eventId, TEST_EVENT_TYPE, JSON.stringify(envelope), now);
  return { deliveryId: `dlv_${id}`, eventId };
}

/** The delivery's event again, with the same event id, as a new delivery to the same endpoint. */
export async function redeliver(
  deps: EventDeps,
  deliveryId: string,
  ownerAccountId?: string,
): Promise<{ deliveryId: string; eventId: string }> {
  const notFound = new DomainError("not_found", `Delivery '${deliveryId}' not found`);
  const match = /^dlv_(\d{1,18})$/.exec(deliveryId);
  if (match === null) throw notFound;
  const delivery = await findDelivery(deps.db, match[1]!);
  if (delivery === undefined) throw notFound;
  if (ownerAccountId !== undefined) {
    await findOwnedEndpoint(deps, delivery.endpoint_id, ownerAccountId).catch(() => {
      throw notFound;
    });
  }
  const id = await insertRedelivery(deps.db, delivery, deps.clock.now());
  return { deliveryId: `dlv_${id}`, eventId: delivery.event_id };
}
