import type { Clock } from "../domain/clock.ts";
import { isTier } from "../domain/tiers.ts";
import { integrationRowToIntegration } from "../integrations/integration-rows.ts";
import { PLATFORM_ADAPTERS } from "../integrations/platforms/platform-adapters.ts";
import type { WebhookVerifier } from "../pipeline/verifiers.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Db } from "../store/database.ts";
import { findIntegrationByWebhookId, type IntegrationWithAccount } from "../store/integration-repository.ts";
import { createShortLivedCache } from "./authenticate.ts";

// Turns a platform webhook into a principal: the integration its URL names,
// if the request carries that integration's credential the platform's way.
// An unknown URL and a bad credential are the same refusal. Lookups are
// cached for less than a second, as API keys are: a platform's inbound
// webhook then costs no database read before its start.

export function createWebhookVerifier(
  db: Db,
  clock: Clock,
  secrets: SecretBox,
  monotonicNow: () => number = () => performance.now(),
): WebhookVerifier {
  const cache = createShortLivedCache<IntegrationWithAccount | undefined>(monotonicNow);
  /** The integration a webhook URL names, with what checking its credential needs. */
  const lookUp = async (webhookId: string, headers: Headers, url: string) => {
    if (!/^wh_[0-9A-Za-z]{32}$/.test(webhookId)) return undefined;
    // Opened once per lookup, not per webhook: the cache holds the plain secret for less than a second.
    const found = await cache.get(webhookId, async () =>
      openSigningSecret(await findIntegrationByWebhookId(db, webhookId), secrets),
    );
    if (found === undefined) return undefined;
    const integration = integrationRowToIntegration(found.integration);
    const credentials = { tokenHash: found.integration.token_hash, signingSecret: found.integration.signing_secret };
    const request = { headers, url, nowMs: clock.now().getTime(), credentials };
    return { found, integration, request, adapter: PLATFORM_ADAPTERS[integration.platform] };
  };
  const verify: WebhookVerifier["verify"] = async (webhookId, payload, headers, url) => {
    const named = await lookUp(webhookId, headers, url);
    if (named === undefined || !named.adapter.authenticate({ ...named.request, payload })) return { ok: false };
    const { found, integration } = named;
    return {
      ok: true,
      integration,
      principal: {
        tenant: { accountId: integration.accountId, mode: integration.kind },
        // Rate limited per integration, as an API key is per key.
        keyId: integration.integrationId,
        billingAccountId: found.billingAccountId,
        tier: isTier(found.tier) ? found.tier : "free",
        retentionDays: found.retentionDays,
      },
    };
  };
  const streamingCheck: WebhookVerifier["streamingCheck"] = async (webhookId, headers, url) => {
    const named = await lookUp(webhookId, headers, url);
    const check = named?.adapter.streamingCheck?.(named.request);
    return named === undefined || check === undefined ? undefined : { integration: named.integration, check };
  };
  return { verify, streamingCheck, forgetAll: () => cache.clear() };
}

function openSigningSecret(
  found: IntegrationWithAccount | undefined,
  secrets: SecretBox,
): IntegrationWithAccount | undefined {
  const sealed = found?.integration.signing_secret;
  if (found === undefined || sealed === null || sealed === undefined) return found;
  return { ...found, integration: { ...found.integration, signing_secret: secrets.open(sealed) } };
}
