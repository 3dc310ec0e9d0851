import type { ServiceImpl } from "@connectrpc/connect";
import type { IntegrationService } from "../../gen/callercontext/v1/integrations_pb.ts";
import type { AppContext } from "../context.ts";
import { DomainError } from "../domain/domain-error.ts";
import { integrationKey, webhookEventKey } from "../guards/context-values.ts";
import { noteNoContext } from "../guards/webhook-triage.ts";
import { receiveWebhook } from "../integrations/receive-webhook.ts";
import { countNoContext } from "../metrics/metrics.ts";
import { webhookDepsOf } from "../use-case-deps.ts";
import { callRequestOf } from "./caller-context-service.ts";
import { withDomainErrors } from "./public-error.ts";

/** Platform webhooks: the raw body in, the platform's answer out as JSON text. */
export function createIntegrationService(app: AppContext): ServiceImpl<typeof IntegrationService> {
  const deps = webhookDepsOf(app);
  return {
    receiveWebhook: withDomainErrors(async (_request, context) => {
      const integration = context.values.get(integrationKey);
      const event = context.values.get(webhookEventKey);
      // Set by the authentication guard and the webhook triage for every webhook; missing means a miswired chain.
      if (integration === undefined || event === undefined) throw new DomainError("internal", "No verified webhook");
      const answer = await receiveWebhook(deps, callRequestOf(context), integration, event);
      if (answer.noContext !== undefined)
        noteNoContext(context.values, integration, answer.noContext, countNoContext(app.metrics));
      return { replyJson: JSON.stringify(answer.reply) };
    }),
  };
}
