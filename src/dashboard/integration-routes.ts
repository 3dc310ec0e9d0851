import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { DomainError } from "../domain/domain-error.ts";
import { createIntegration } from "../integrations/create-integration.ts";
import { deleteIntegration } from "../integrations/delete-integration.ts";
import { listIntegrations } from "../integrations/list-integrations.ts";
import { PLATFORM_ADAPTERS, PLATFORMS } from "../integrations/platforms/platform-adapters.ts";
import type { UserRow } from "../store/schema.ts";
import { accountDepsOf } from "../use-case-deps.ts";
import { auditAction } from "./audit-action.ts";
import { createFlashes } from "./flash.ts";
import { formErrors, orMessage } from "./messages.ts";
import { allowed, productionAllowed } from "./role-guard.ts";
import { signedIn } from "./session-guard.ts";

// The Integrations page: the account's platform webhooks through the same use
// cases as the admin API, with each webhook URL spelled out for this host.

type Form = Record<string, string | undefined>;
type IdParams = { Params: { id: string } };
const field = (body: unknown, name: string) => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === "string" ? value.trim() : "";
};

/** Each platform's name on the page, and what the form's optional fields are for, from its adapter. */
const PLATFORM_LABELS = Object.fromEntries(PLATFORMS.map((platform) => [platform, PLATFORM_ADAPTERS[platform].label]));
const adapters = PLATFORMS.map((platform) => PLATFORM_ADAPTERS[platform]);
const FIELD_HINTS = {
  signingSecret: [
    adapters.filter((a) => a.creation.signingSecret === "secret").map((a) => a.label),
    adapters
      .filter((a) => a.creation.signingSecret && a.creation.signingSecret !== "secret")
      .map((a) => `${a.label}: its ${a.creation.signingSecret}`),
  ]
    .map((labels) => labels.join(", "))
    .filter((text) => text !== "")
    .join("; "),
  assistantId: adapters
    .filter((a) => a.creation.assistantId)
    .map((a) => a.label)
    .join(", "),
};

export function registerIntegrationRoutes(scope: FastifyInstance, app: AppContext): void {
  const deps = accountDepsOf(app);
  const flashes = createFlashes(app.secrets, app.clock);
  const urlOf = (request: FastifyRequest, path: string) => `${request.protocol}://${request.host}${path}`;
  /** One of the account's integrations, or not found: an id of another account names nothing here. */
  const owned = async (user: UserRow, id: string) => {
    const found = (await listIntegrations(deps, user.account_id)).find((i) => i.integrationId === id);
    if (!found) throw new DomainError("not_found", `Integration '${id}' not found`);
    return found;
  };

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: UserRow,
    extra: Record<string, unknown> = {},
    status = 200,
  ) => {
    const integrations = (await listIntegrations(deps, user.account_id)).map((i) => ({
      ...i,
      url: urlOf(request, i.webhookPath),
    }));
    return reply.code(status).view("integrations.eta", {
      title: "Integrations",
      tab: "integrations",
      integrations,
      platforms: PLATFORM_LABELS,
      fieldHints: FIELD_HINTS,
      created: undefined,
      errors: {},
      values: { platform: "vapi", kind: "test" },
      ...extra,
    });
  };

  scope.get("/integrations", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    // A new integration's secret arrives here once, from the form's redirect (flash.ts).
    return listPage(request, reply, user, { created: flashes.take(request, reply).integration });
  });

  scope.post("/integrations", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const body = request.body;
    const values = {
      platform: field(body, "platform"),
      name: field(body, "name"),
      kind: field(body, "kind"),
      assistant_id: field(body, "assistant_id"),
      intent_field: field(body, "intent_field"),
      status_field: field(body, "status_field"),
      variable_fields: field(body, "variable_fields"),
      store_summary: field(body, "store_summary") === "on",
    };
    if (values.kind === "prod" && !(await productionAllowed(request, reply))) return reply;
    try {
      const created = await createIntegration(deps, {
        accountId: user.account_id,
        platform: values.platform,
        name: values.name,
        kind: values.kind,
        // The platform's own secret is never echoed back into the form.
        signingSecret: field(body, "signing_secret"),
        assistantId: values.assistant_id,
        intentField: values.intent_field,
        statusField: values.status_field,
        variableFields: values.variable_fields
          .split(",")
          .map((f) => f.trim())
          .filter((f) => f !== ""),
        storeSummary: values.store_summary,
      });
      const made = created.integration;
      await auditAction(
        app,
        request,
        "integration_created",
        `${made.integrationId} (${made.name}, ${made.platform}, ${made.kind})`,
      );
      flashes.leave(request, reply, {
        integration: {
          ...created.integration,
          url: urlOf(request, created.integration.webhookPath),
          secret: created.webhookSecret,
        },
      });
      return reply.redirect("/dashboard/integrations", 303);
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      return listPage(request, reply, user, { errors, values, message }, status);
    }
  });

  scope.get<IdParams>("/integrations/:id/delete", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const integration = await orMessage(reply, () => owned(user, request.params.id));
    if (integration) {
      return reply.view("delete-integration.eta", {
        title: "Delete integration",
        tab: "integrations",
        integration,
        platforms: PLATFORM_LABELS,
      });
    }
  });

  scope.post<IdParams>("/integrations/:id/delete", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    if (!(await allowed(request, reply, "delete_integration"))) return reply;
    const deleted = await orMessage(reply, () => deleteIntegration(deps, request.params.id, user.account_id));
    if (!deleted) return;
    await auditAction(
      app,
      request,
      "integration_deleted",
      `${deleted.integrationId} (${deleted.name}, ${deleted.platform}, ${deleted.kind})`,
    );
    return reply.redirect("/dashboard/integrations", 303);
  });
}
