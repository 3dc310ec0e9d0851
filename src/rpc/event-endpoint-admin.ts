import type { ServiceImpl } from "@connectrpc/connect";
import type { AdminService } from "../../gen/callercontext/v1/admin_pb.ts";
import type { AppContext } from "../context.ts";
import type { EventDelivery, EventEndpoint } from "../domain/events.ts";
import { createEndpoint } from "../events/create-endpoint.ts";
import { listDeliveries, redeliver, sendTestEvent } from "../events/endpoint-deliveries.ts";
import { deleteEndpoint, listEndpoints, rollEndpointSecret, setEndpointEnabled } from "../events/manage-endpoints.ts";
import { decodeIssuesKey } from "../pipeline/context-values.ts";
import { eventDepsOf } from "../use-case-deps.ts";

// The event endpoint methods of AdminService: proto ⇄ the endpoint use cases.

type EventEndpointMethods = Pick<
  ServiceImpl<typeof AdminService>,
  | "createEventEndpoint"
  | "listEventEndpoints"
  | "setEventEndpointEnabled"
  | "rollEventEndpointSecret"
  | "deleteEventEndpoint"
  | "sendTestEvent"
  | "listEventDeliveries"
  | "redeliverEvent"
>;

export function eventEndpointMethods(app: AppContext): EventEndpointMethods {
  const deps = eventDepsOf(app);
  return {
    createEventEndpoint: async (req, context) => {
      const created = await createEndpoint(deps, {
        accountId: req.accountId,
        url: req.url,
        kind: req.kind,
        eventTypes: req.eventTypes,
        includeVariableValues: req.includeVariableValues,
        decodeIssues: context.values.get(decodeIssuesKey),
      });
      return { endpoint: endpointToProto(created.endpoint), signingSecret: created.signingSecret };
    },
    listEventEndpoints: async (req) => ({
      endpoints: (await listEndpoints(deps, req.accountId)).map(endpointToProto),
    }),
    setEventEndpointEnabled: async (req) => ({
      endpoint: endpointToProto(await setEndpointEnabled(deps, req.endpointId, req.enabled)),
    }),
    rollEventEndpointSecret: async (req, context) => {
      const grace = req.grace || "24h";
      const rolled = await rollEndpointSecret(
        deps,
        req.endpointId,
        grace,
        undefined,
        context.values.get(decodeIssuesKey),
      );
      return {
        endpoint: endpointToProto(rolled.endpoint),
        signingSecret: rolled.signingSecret,
        previousSecretExpiresAt: rolled.previousExpiresAt.toISOString(),
      };
    },
    deleteEventEndpoint: async (req) => {
      await deleteEndpoint(deps, req.endpointId);
      return { endpointId: req.endpointId, deleted: true };
    },
    sendTestEvent: async (req) => sendTestEvent(deps, req.endpointId),
    listEventDeliveries: async (req) => ({
      deliveries: (await listDeliveries(deps, req.endpointId)).map(deliveryToProto),
    }),
    redeliverEvent: async (req) => redeliver(deps, req.deliveryId),
  };
}

function endpointToProto(endpoint: EventEndpoint) {
  return { ...endpoint, eventTypes: [...endpoint.eventTypes], createdAt: endpoint.createdAt.toISOString() };
}

function deliveryToProto(delivery: EventDelivery) {
  return {
    ...delivery,
    createdAt: delivery.createdAt.toISOString(),
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? "",
  };
}
