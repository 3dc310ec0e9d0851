import type { ServiceImpl } from "@connectrpc/connect";
import type { IntegrationService } from "../../gen/callercontext/v1/integrations_pb.ts";
import type { AppContext } from "../context.ts";
import { DomainError } from "../domain/domain-error.ts";
import { integrationKey } from "../guards/context-values.ts";
import { receiveWebhook } from "../integrations/receive-webhook.ts";
import { webhookDepsOf } from "../integrations/webhook-deps.ts";
import { callRequestOf } from "./caller-context-service.ts";
import { withDomainErrors } from "./connect-errors.ts";

/** Platform webhooks: the raw body in, the platform's answer out as JSON text. */
export function createIntegrationService(app: AppContext): ServiceImpl<typeof IntegrationService> {
  const deps = webhookDepsOf(app);
  return {
    receiveWebhook: withDomainErrors(async (request, context) => {
      const integration = context.values.get(integrationKey);
      // Set by the authentication guard for every webhook; missing means a miswired chain.
      if (integration === undefined) throw new DomainError("internal", "No verified integration");
      const reply = await receiveWebhook(deps, callRequestOf(context), integration, request.payload);
      return { replyJson: JSON.stringify(reply) };
    }),
  };
}
