import {
  type EventDelivery,
  EventDeliverySchema,
  type EventEndpoint,
  EventEndpointSchema,
} from "../../gen/callercontext/v1/event_endpoints_pb.ts";
import { EVENT_TYPES } from "../domain/events.ts";
import { MODES } from "../domain/tenant.ts";
import { parseChoice, parseChoices, requireOption } from "./arguments.ts";
import type { Command, CommandResult } from "./command.ts";
import { fields, table, wireJson } from "./output.ts";

// An account's event endpoints (docs/events.md): create, list, enable or
// disable, roll the signing secret, delete, send a test event, and look at or
// redeliver the deliveries.

const YES_NO = ["yes", "no"] as const;
const GRACES = ["now", "1h", "24h", "7d"] as const;

export const eventCommands: readonly Command[] = [
  {
    name: "events create",
    args: [],
    options: {
      account: { type: "string" },
      url: { type: "string" },
      kind: { type: "string" },
      types: { type: "string" },
      "include-variable-values": { type: "string" },
    },
    synopsis:
      `--account ACCOUNT_ID --url URL [--kind ${MODES.join("|")}] [--types ${EVENT_TYPES[0]},…] ` +
      "[--include-variable-values yes|no]",
    summary: "add an endpoint for the account's events (all types unless --types); its signing secret is shown once",
    async run({ options, admin }) {
      const created = await admin().createEventEndpoint({
        accountId: requireOption(options, "account"),
        url: requireOption(options, "url"),
        kind: options.kind === undefined ? undefined : parseChoice(options.kind, "--kind", MODES),
        eventTypes:
          options.types === undefined ? [...EVENT_TYPES] : parseChoices(options.types, "--types", EVENT_TYPES),
        includeVariableValues:
          parseChoice(options["include-variable-values"] ?? "no", "--include-variable-values", YES_NO) === "yes",
      });
      const endpoint = created.endpoint as EventEndpoint;
      return {
        json: { endpoint: endpointJson(endpoint), signing_secret: created.signingSecret },
        text: [
          formatEndpoint(endpoint),
          fields([["signing secret", created.signingSecret]]),
          "",
          "Verify each delivery with it (Standard Webhooks): see docs/events.md. It is not shown again.",
        ].join("\n"),
      };
    },
  },
  {
    name: "events list",
    args: [],
    options: { account: { type: "string" } },
    synopsis: "--account ACCOUNT_ID",
    summary: "list an account's event endpoints (never their secrets)",
    async run({ options, admin }) {
      const accountId = requireOption(options, "account");
      const { endpoints } = await admin().listEventEndpoints({ accountId });
      const text =
        endpoints.length === 0
          ? `No event endpoints for account ${accountId}.`
          : endpoints.map(formatEndpoint).join("\n\n");
      return { json: { endpoints: endpoints.map(endpointJson) }, text };
    },
  },
  ...(["enable", "disable"] as const).map(
    (verb): Command => ({
      name: `events ${verb}`,
      args: ["ENDPOINT_ID"],
      options: {},
      summary:
        verb === "enable"
          ? "deliver to the endpoint again (after it was disabled, by you or after failing for a day)"
          : "stop delivering to the endpoint; its events wait until it is enabled",
      async run({ args, admin }) {
        const { endpoint } = await admin().setEventEndpointEnabled({
          endpointId: args[0]!,
          enabled: verb === "enable",
        });
        return endpointResult(endpoint);
      },
    }),
  ),
  {
    name: "events roll-secret",
    args: ["ENDPOINT_ID"],
    options: { grace: { type: "string" } },
    synopsis: `[--grace ${GRACES.join("|")}]`,
    summary: "a new signing secret; deliveries are signed with the old one too until the grace ends (default 24h)",
    async run({ args, options, admin }) {
      const grace = parseChoice(options.grace ?? "24h", "--grace", GRACES);
      const rolled = await admin().rollEventEndpointSecret({ endpointId: args[0]!, grace });
      return {
        json: {
          endpoint: rolled.endpoint ? endpointJson(rolled.endpoint) : null,
          signing_secret: rolled.signingSecret,
          previous_secret_expires_at: rolled.previousSecretExpiresAt,
        },
        text: fields([
          ["signing secret", rolled.signingSecret],
          ["old secret until", rolled.previousSecretExpiresAt],
        ]),
      };
    },
  },
  {
    name: "events delete",
    args: ["ENDPOINT_ID"],
    options: {},
    summary: "delete an endpoint and its pending deliveries",
    async run({ args, admin }) {
      const deleted = await admin().deleteEventEndpoint({ endpointId: args[0]! });
      return {
        json: { endpoint_id: deleted.endpointId, deleted: deleted.deleted },
        text: `Deleted ${deleted.endpointId}.`,
      };
    },
  },
  {
    name: "events test",
    args: ["ENDPOINT_ID"],
    options: {},
    summary: "send an endpoint.test event to the endpoint now",
    async run({ args, admin }) {
      const sent = await admin().sendTestEvent({ endpointId: args[0]! });
      return {
        json: { delivery_id: sent.deliveryId, event_id: sent.eventId },
        text: `Queued ${sent.eventId} as delivery ${sent.deliveryId}: see events deliveries ${args[0]}.`,
      };
    },
  },
  {
    name: "events deliveries",
    args: ["ENDPOINT_ID"],
    options: {},
    summary: "the endpoint's latest deliveries: state, attempts, last response",
    async run({ args, admin }) {
      const { deliveries } = await admin().listEventDeliveries({ endpointId: args[0]! });
      const text =
        deliveries.length === 0
          ? `No deliveries for endpoint ${args[0]}.`
          : table([
              ["DELIVERY", "EVENT", "TYPE", "STATE", "ATTEMPTS", "RESPONSE", "CREATED"],
              ...deliveries.map((d) => [
                d.deliveryId,
                d.eventId,
                d.eventType,
                d.state,
                String(d.attempts),
                d.responseCode === 0 ? d.lastError || "-" : String(d.responseCode),
                d.createdAt,
              ]),
            ]);
      return { json: { deliveries: deliveries.map(deliveryJson) }, text };
    },
  },
  {
    name: "events redeliver",
    args: ["DELIVERY_ID"],
    options: {},
    summary: "send a delivered or failed event to its endpoint again (same event id)",
    async run({ args, admin }) {
      const again = await admin().redeliverEvent({ deliveryId: args[0]! });
      return {
        json: { delivery_id: again.deliveryId, event_id: again.eventId },
        text: `Queued ${again.eventId} again as delivery ${again.deliveryId}.`,
      };
    },
  },
];

function endpointResult(endpoint: EventEndpoint | undefined): CommandResult {
  if (endpoint === undefined) throw new Error("the server answered without an endpoint");
  return { json: { endpoint: endpointJson(endpoint) }, text: formatEndpoint(endpoint) };
}

const endpointJson = (endpoint: EventEndpoint) => wireJson(EventEndpointSchema, endpoint);
const deliveryJson = (delivery: EventDelivery) => wireJson(EventDeliverySchema, delivery);

function formatEndpoint(endpoint: EventEndpoint): string {
  return fields([
    ["endpoint", endpoint.endpointId],
    ["url", endpoint.url],
    ["kind", endpoint.kind],
    ["events", endpoint.eventTypes.join(", ") || "all"],
    ["variable values", endpoint.includeVariableValues ? "yes" : "no"],
    [
      "status",
      endpoint.enabled ? "enabled" : `disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ""}`,
    ],
  ]);
}
