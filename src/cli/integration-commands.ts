import { type Integration, IntegrationSchema } from "../../gen/callercontext/v1/admin_pb.ts";
import { MODES } from "../domain/tenant.ts";
import { PLATFORM_ADAPTERS, PLATFORMS } from "../integrations/platforms/platform-adapters.ts";
import { parseChoice, requireOption, UsageError } from "./arguments.ts";
import type { Command } from "./command.ts";
import { fields, wireJson } from "./output.ts";

const YES_NO = ["yes", "no"] as const;

export const integrationCommands: readonly Command[] = [
  {
    name: "integrations create",
    args: [],
    options: {
      account: { type: "string" },
      platform: { type: "string" },
      name: { type: "string" },
      kind: { type: "string" },
      "signing-secret": { type: "string" },
      "assistant-id": { type: "string" },
      "intent-field": { type: "string" },
      "status-field": { type: "string" },
      variables: { type: "string" },
      "store-summary": { type: "string" },
    },
    synopsis:
      `--account ACCOUNT_ID --platform ${PLATFORMS.join("|")} --name NAME [--kind ${MODES.join("|")}] ` +
      "[--signing-secret SECRET] [--assistant-id ID] [--intent-field F] [--status-field F] [--variables A,B] " +
      "[--store-summary yes|no]",
    summary: "connect a voice platform; prints its webhook URL and the secret it sends (shown once)",
    async run({ options, admin, env }) {
      const accountId = requireOption(options, "account");
      const platform = parseChoice(requireOption(options, "platform"), "--platform", PLATFORMS);
      const kind = options.kind === undefined ? undefined : parseChoice(options.kind, "--kind", MODES);
      const storeSummary = parseChoice(options["store-summary"] ?? "no", "--store-summary", YES_NO) === "yes";
      const variables = (options.variables ?? "").split(",").map((name) => name.trim());
      // A secret on the command line lands in shell history; the environment is the better place.
      const signingSecret = options["signing-secret"] ?? env.CALLER_CONTEXT_SIGNING_SECRET;
      // Checked here as the server checks them, so the message names the flag rather than the API field.
      const needs = PLATFORM_ADAPTERS[platform].creation;
      if (needs.signingSecret && !signingSecret) {
        throw new UsageError(`--signing-secret (or CALLER_CONTEXT_SIGNING_SECRET) is required for ${platform}`);
      }
      if (needs.assistantId && !options["assistant-id"]) {
        throw new UsageError(`--assistant-id is required for ${platform}`);
      }
      const created = await admin().createIntegration({
        accountId,
        platform,
        name: requireOption(options, "name"),
        kind,
        signingSecret: signingSecret || undefined,
        assistantId: options["assistant-id"],
        endOfCall: {
          intentField: options["intent-field"] ?? "",
          statusField: options["status-field"] ?? "",
          variableFields: variables.filter((name) => name !== ""),
          storeSummary,
        },
      });
      const integration = created.integration as Integration;
      // The address platforms reach the service at; the admin URL when the two are the same.
      const origin = env.CALLER_CONTEXT_PUBLIC_URL || env.CALLER_CONTEXT_URL || "http://127.0.0.1:8080";
      const webhookUrl = new URL(integration.webhookPath, origin);
      const printed: [string, string][] = [
        ["webhook url", webhookUrl.toString()],
        ["webhook secret", created.webhookSecret],
      ];
      if (platform === "twilio_studio") {
        // The widget has no header field: its credential goes in the URL as Basic user:password.
        const withCredentials = new URL(webhookUrl);
        withCredentials.username = "studio";
        withCredentials.password = created.webhookSecret;
        printed.push(["studio url", withCredentials.toString()]);
      }
      return {
        json: {
          integration: integrationJson(integration),
          webhook_url: webhookUrl.toString(),
          webhook_secret: created.webhookSecret,
        },
        text: [
          // One block, so the secret's lines align with the integration's.
          fields([...integrationRows(integration), ...printed]),
          "",
          "Paste the webhook URL and the secret into the platform: see docs/integrations.md.",
          "The secret is not shown again.",
        ].join("\n"),
      };
    },
  },
  {
    name: "integrations list",
    args: [],
    options: { account: { type: "string" } },
    synopsis: "--account ACCOUNT_ID",
    summary: "list an account's integrations with their webhook paths (never secrets)",
    async run({ options, admin }) {
      const accountId = requireOption(options, "account");
      const { integrations } = await admin().listIntegrations({ accountId });
      const text =
        integrations.length === 0
          ? `No integrations for account ${accountId}.`
          : integrations.map(formatIntegration).join("\n\n");
      return { json: { integrations: integrations.map(integrationJson) }, text };
    },
  },
  {
    name: "integrations delete",
    args: ["INTEGRATION_ID"],
    options: {},
    summary: "delete an integration; its webhook URL answers 401 from then on",
    async run({ args, admin }) {
      const deleted = await admin().deleteIntegration({ integrationId: args[0]! });
      return {
        json: { integration_id: deleted.integrationId, deleted: deleted.deleted },
        text: `Deleted ${deleted.integrationId}.`,
      };
    },
  },
];

const integrationJson = (integration: Integration) => wireJson(IntegrationSchema, integration);

function formatIntegration(integration: Integration): string {
  return fields(integrationRows(integration));
}

function integrationRows(integration: Integration): [string, string][] {
  const mapping = integration.endOfCall;
  return [
    ["integration", integration.integrationId],
    ["platform", integration.platform],
    ["name", integration.name],
    ["kind", integration.kind],
    ["webhook path", integration.webhookPath],
    ["intent field", mapping?.intentField ?? ""],
    ["status field", mapping?.statusField ?? ""],
    ["variables", mapping?.variableFields.join(", ") || "-"],
    ["store summary", mapping?.storeSummary ? "yes" : "no"],
  ];
}
