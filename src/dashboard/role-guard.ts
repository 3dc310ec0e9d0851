import type { FastifyReply, FastifyRequest } from "fastify";
import { type DestructiveAction, mayPerform, mayUseProduction } from "../dashboard-auth/roles.ts";
import { renderMessage } from "./messages.ts";

const ACTION_NAMES: Record<DestructiveAction, string> = {
  revoke_production_key: "revoke a production key",
  roll_production_key: "roll a production key",
  erase_customer: "erase a production customer",
  merge_customers: "merge production customers",
  delete_integration: "delete an integration",
  create_production_endpoint: "create a production event endpoint",
  roll_production_endpoint: "roll a production event endpoint's secret",
  delete_production_endpoint: "delete a production event endpoint",
  manage_members: "manage members",
};

/** Whether the signed-in person may do this; if not, a 403 page is already sent (checked before anything changes). */
export async function allowed(
  request: FastifyRequest,
  reply: FastifyReply,
  action: DestructiveAction,
): Promise<boolean> {
  const user = request.dashboardUser;
  if (user !== undefined && mayPerform(user, action)) return true;
  await renderMessage(reply, 403, `Only an owner can ${ACTION_NAMES[action]}`, "Ask the account's owner to do it.");
  return false;
}

/** Production keys and integrations need a confirmed address; if not, a 403 page is already sent. */
export async function productionAllowed(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const user = request.dashboardUser;
  if (user !== undefined && mayUseProduction(user)) return true;
  await renderMessage(
    reply,
    403,
    "Confirm your email address first",
    "Production keys and integrations wait until you open the link we mailed you. Test keys work already.",
  );
  return false;
}
