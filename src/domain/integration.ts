import type { Mode } from "./tenant.ts";

// A voice platform connected to an account: who it acts as, how its webhooks
// prove they come from it, and how its end-of-call report becomes an end.
// What each platform needs and how it signs is its adapter's (src/integrations/platforms/).

/**
 * A platform's name in the API. The names are the adapters' (src/integrations/platforms/platform-adapters.ts),
 * which the domain cannot import: every write of an integration checks the name there, so a new platform is its
 * adapter and nothing here.
 */
export type Platform = string;

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
