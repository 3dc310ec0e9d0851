import type { ServiceImpl } from "@connectrpc/connect";
import type { IntegrationService } from "../../gen/callercontext/v1/integrations_pb.ts";
import type { AppContext } from "../context.ts";
import { DomainError } from "../domain/domain-error.ts";
import { receiveWebhook } from "../integrations/receive-webhook.ts";
import { integrationKey, noteNoContextKey, webhookEventKey } from "../pipeline/context-values.ts";
import { webhookDepsOf } from "../use-case-deps.ts";
import { billedAnswer, callRequestOf } from "./caller-context-service.ts";

/** Platform webhooks: the raw body in, the platform's answer out as JSON text. */
export function createIntegrationService(app: AppContext): ServiceImpl<typeof IntegrationService> {
  const deps = webhookDepsOf(app);
  return {
    receiveWebhook: async (_request, context) => {
      const integration = context.values.get(integrationKey);
      const event = context.values.get(webhookEventKey);
      // Set by the authentication guard and the webhook triage for every webhook; missing means a miswired chain.
      if (integration === undefined || event === undefined) throw new DomainError("internal", "No verified webhook");
      const answer = billedAnswer(context, await receiveWebhook(deps, callRequestOf(context), integration, event));
      if (answer.noContext !== undefined) context.values.get(noteNoContextKey)?.(answer.noContext);
      return { replyJson: JSON.stringify(answer.reply) };
    },
  };
}
