import { randomUUID } from "node:crypto";
import { PLATFORM_ADAPTERS, PLATFORMS } from "../integrations/platforms/platform-adapters.ts";
import { MissingSecretError } from "../integrations/platforms/platform-simulation.ts";
import { parseChoice, requireOption, UsageError } from "./arguments.ts";
import type { Command } from "./command.ts";
import { fields } from "./output.ts";
import { PLATFORM_EVENTS } from "./simulate/platform-events.ts";
import { SIMULATED_DEFAULTS, type SimulatedCall } from "./simulate/simulated-call.ts";
import { telnyxKeyPair } from "./simulate/telnyx-key-pair.ts";

// `caller-context simulate PLATFORM EVENT`: one of a platform's webhooks, in its shape and with its credentials,
// sent to an integration's webhook URL, as the platform would during a real call. It talks to the public port
// like the platform does, never to the admin API.

const STATUSES = ["open", "resolved"] as const;
const SEND_TIMEOUT_MS = 10_000;

const eventList = () =>
  PLATFORMS.map((platform) => `${platform}: ${Object.keys(PLATFORM_EVENTS[platform]).join(", ")}`).join("; ");

/** `a=1,b=2` → {a: "1", b: "2"}. */
function parseVariables(text: string | undefined): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const pair of (text ?? "").split(",").filter((item) => item.trim() !== "")) {
    const at = pair.indexOf("=");
    if (at < 1) throw new UsageError(`--variables takes name=value pairs separated by commas, got '${pair}'`);
    variables[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return variables;
}

export const simulateCommands: readonly Command[] = [
  {
    name: "simulate",
    args: ["PLATFORM", "EVENT"],
    options: {
      url: { type: "string" },
      "webhook-secret": { type: "string" },
      "signing-secret": { type: "string" },
      "call-id": { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      intent: { type: "string" },
      status: { type: "string" },
      summary: { type: "string" },
      variables: { type: "string" },
    },
    synopsis:
      "--url WEBHOOK_URL [--webhook-secret WHSEC] [--signing-secret SECRET] [--call-id ID] [--from NUMBER] " +
      "[--to NUMBER] [--intent NAME] [--status open|resolved] [--summary TEXT] [--variables A=1,B=2]",
    summary:
      "send a platform's webhook (its inbound, or its end-of-call report) to an integration, as the platform would",
    async run({ args, options, env }) {
      const platform = parseChoice(args[0]!, "PLATFORM", PLATFORMS);
      const { simulation } = PLATFORM_ADAPTERS[platform];
      const event = PLATFORM_EVENTS[platform][args[1]!];
      if (event === undefined) {
        throw new UsageError(`unknown event '${args[1]}' for ${platform}; the events are ${eventList()}`);
      }
      const url = requireOption(options, "url");
      if (!URL.canParse(url)) throw new UsageError(`--url is not a URL: '${url}'`);
      // Secrets on the command line land in shell history; the environment is the better place.
      const webhookSecret = options["webhook-secret"] ?? env.CALLER_CONTEXT_WEBHOOK_SECRET ?? "";
      const signingSecret = options["signing-secret"] ?? env.CALLER_CONTEXT_SIGNING_SECRET;
      const call: SimulatedCall = {
        callId: options["call-id"] ?? `sim-${randomUUID()}`,
        from: options.from ?? SIMULATED_DEFAULTS.from,
        to: options.to ?? SIMULATED_DEFAULTS.to,
        intent: options.intent ?? SIMULATED_DEFAULTS.intent,
        intentStatus: parseChoice(options.status ?? SIMULATED_DEFAULTS.intentStatus, "--status", STATUSES),
        summary: options.summary ?? SIMULATED_DEFAULTS.summary,
        variables: parseVariables(options.variables),
        nowMs: Date.now(),
      };
      const body = event.body(call);
      let headers: Record<string, string>;
      try {
        headers = simulation.headers({ kind: event.kind, body, url, nowMs: call.nowMs, webhookSecret, signingSecret });
      } catch (error) {
        if (error instanceof MissingSecretError) throw new UsageError(missingSecretMessage(error, platform));
        throw error;
      }
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": event.contentType, ...headers },
        body,
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      const text = await response.text();
      const answer = parseJson(text);
      // A platform whose inbound carries no call id (Retell) finds the one the end must carry in the answer.
      const callId =
        event.kind === "inbound" && simulation.inboundCallId ? simulation.inboundCallId(answer) : call.callId;
      if (!response.ok) {
        throw new Error(`the service answered ${response.status}: ${text.slice(0, 500)}`);
      }
      return {
        json: { platform, event: args[1], call_id: callId, status: response.status, answer },
        text: [
          fields([
            ["platform", platform],
            ["event", args[1]!],
            ["call id", callId],
            ["status", response.status],
          ]),
          "",
          typeof answer === "string" ? answer : JSON.stringify(answer, null, 2),
        ].join("\n"),
      };
    },
  },
  {
    name: "telnyx-keys",
    args: [],
    options: {},
    summary:
      "make an Ed25519 key pair for a local Telnyx integration: the public key for `integrations create " +
      "--signing-secret`, the private one for `simulate telnyx … --signing-secret`",
    async run() {
      const pair = telnyxKeyPair();
      return {
        json: { public_key: pair.publicKey, private_key: pair.privateKey },
        text: fields([
          ["public key", pair.publicKey],
          ["private key", pair.privateKey],
        ]),
      };
    },
  },
];

/** The missing secret, named by the flag and the variable that give it. */
function missingSecretMessage(error: MissingSecretError, platform: string): string {
  return error.secret === "signing"
    ? `--signing-secret (or CALLER_CONTEXT_SIGNING_SECRET) is required to sign as ${platform}`
    : "--webhook-secret (or CALLER_CONTEXT_WEBHOOK_SECRET) is required: the whsec_… that `integrations create` printed";
}

function parseJson(text: string): unknown {
  try {
    return text === "" ? "" : JSON.parse(text);
  } catch {
    return text;
  }
}
