import type { Mode } from "./tenant.ts";

// A voice platform connected to an account: who it acts as, how its webhooks
// prove they come from it, and how its end-of-call report becomes an end.

export const PLATFORMS = ["vapi", "retell", "elevenlabs", "twilio_studio", "telnyx"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Whether the platform signs its webhooks, so an integration needs the secret (Telnyx: the public key) it signs with. */
export function needsSigningSecret(platform: string): boolean {
  return platform === "retell" || platform === "elevenlabs" || platform === "telnyx";
}

/** Whether the platform's inbound webhook names the assistant that answers, so an integration needs its id. */
export function needsAssistantId(platform: string): boolean {
  return platform === "vapi";
}

export function isPlatform(value: string): value is Platform {
  return (PLATFORMS as readonly string[]).includes(value);
}

export interface EndOfCallMapping {
  readonly intentField: string;
  readonly statusField: string;
  readonly variableFields: readonly string[];
  readonly storeSummary: boolean;
}

export interface Integration {
  readonly integrationId: string;
  readonly accountId: string;
  readonly platform: Platform;
  readonly name: string;
  readonly kind: Mode;
  readonly webhookPath: string;
  readonly assistantId: string;
  readonly hasSigningSecret: boolean;
  readonly endOfCall: EndOfCallMapping;
}

/** What a webhook's verification needs beyond the public description. */
export interface IntegrationCredentials {
  readonly tokenHash: string;
  readonly signingSecret: string | null;
}

export const WEBHOOK_PATH_PREFIX = "/v1/integrations/";

/** The variable the platform's call summary is saved as, when the integration stores it. */
export const SUMMARY_VARIABLE = "call_summary";
