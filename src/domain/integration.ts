import type { Mode } from "./tenant.ts";

// A voice platform connected to an account: who it acts as, how its webhooks
// prove they come from it, and how its end-of-call report becomes an end.
// What each platform needs and how it signs is its adapter's (src/integrations/platforms/).

export const PLATFORMS = ["vapi", "retell", "elevenlabs", "twilio_studio", "telnyx"] as const;
export type Platform = (typeof PLATFORMS)[number];

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
