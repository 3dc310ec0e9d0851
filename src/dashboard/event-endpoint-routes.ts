import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import { EVENT_TYPE_DEFINITIONS } from "../domain/event-types/event-types.ts";
import { EVENT_TYPES, type EventEndpoint, type EventType } from "../domain/events.ts";
import { createEndpoint } from "../events/create-endpoint.ts";
import { deleteEndpoint, findOwnedEndpoint, listEndpoints, rollEndpointSecret } from "../events/manage-endpoints.ts";
import type { UserRow } from "../store/schema.ts";
import { eventDepsOf } from "../use-case-deps.ts";
import { auditAction } from "./audit-action.ts";
import { createFlashes } from "./flash.ts";
import { field, fields } from "./form-fields.ts";
import { GRACE_LABELS } from "./key-routes.ts";
import { formErrors, orMessage } from "./messages.ts";
import { allowed, productionAllowed } from "./role-guard.ts";
import { signedIn } from "./session-guard.ts";

// The Events page: the account's event endpoints through the same use cases
// as the admin API. Creating or rolling one shows its signing secret once,
// on the page the form redirects to (flash.ts); deleting asks first.

type IdParams = { Params: { id: string } };

/** What each type means, beside its checkbox (from its module in src/domain/event-types/). */
export const EVENT_TYPE_HINTS: Readonly<Record<EventType, string>> = Object.fromEntries(
  EVENT_TYPE_DEFINITIONS.map((definition) => [definition.type, definition.hint]),
) as Record<EventType, string>;

const describe = (e: EventEndpoint) => `${e.endpointId} (${e.url}, ${e.kind})`;

export function registerEventEndpointRoutes(scope: FastifyInstance, app: AppContext): void {
  const deps = eventDepsOf(app);
  const flashes = createFlashes(app.secrets, app.clock);
  const owned = (user: UserRow, id: string) => findOwnedEndpoint(deps, id, user.account_id);

  const listPage = async (reply: FastifyReply, user: UserRow, extra: Record<string, unknown> = {}, status = 200) =>
    reply.code(status).view("events.eta", {
      title: "Events",
      tab: "events",
      endpoints: await listEndpoints(deps, user.account_id),
      eventTypes: EVENT_TYPE_HINTS,
      graces: GRACE_LABELS,
      secret: undefined,
      notice: "",
      errors: {},
      values: { url: "", kind: "test", event_types: [...EVENT_TYPES], include_variable_values: false },
      ...extra,
    });

  scope.get("/events", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const { endpoint, notice } = flashes.take(request, reply);
    return listPage(reply, user, {
      secret: endpoint && { ...endpoint, rolledUntil: endpoint.rolledUntil && new Date(endpoint.rolledUntil) },
      notice: notice ?? "",
    });
  });

  scope.post("/events", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const body = request.body;
    const values = {
      url: field(body, "url").trim(),
      kind: field(body, "kind"),
      event_types: fields(body, "event_types"),
      include_variable_values: field(body, "include_variable_values") === "on",
    };
    if (values.kind === "prod") {
      if (!(await productionAllowed(request, reply))) return reply;
      if (!(await allowed(request, reply, "create_production_endpoint"))) return reply;
    }
    try {
      const created = await createEndpoint(deps, {
        accountId: user.account_id,
        url: values.url,
        kind: values.kind,
        eventTypes: values.event_types,
        includeVariableValues: values.include_variable_values,
      });
      const made = created.endpoint;
      await auditAction(app, request, "event_endpoint_created", `${describe(made)}: ${made.eventTypes.join(", ")}`);
      flashes.leave(request, reply, {
        endpoint: { endpointId: made.endpointId, url: made.url, kind: made.kind, secret: created.signingSecret },
      });
      return reply.redirect("/dashboard/events", 303);
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      return listPage(reply, user, { errors, values, message }, status);
    }
  });

  scope.post<IdParams>("/events/:id/roll", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const endpoint = await orMessage(reply, () => owned(user, request.params.id));
    if (!endpoint) return;
    if (endpoint.kind === "prod" && !(await allowed(request, reply, "roll_production_endpoint"))) return reply;
    const grace = field(request.body, "grace");
    const rolled = await orMessage(reply, () => rollEndpointSecret(deps, endpoint.id, grace, user.account_id));
    if (!rolled) return;
    const until = rolled.previousExpiresAt.toISOString();
    await auditAction(app, request, "event_endpoint_rolled", `${describe(rolled.endpoint)}; old secret ends ${until}`);
    const { endpointId, url, kind } = rolled.endpoint;
    flashes.leave(request, reply, {
      endpoint: { endpointId, url, kind, secret: rolled.signingSecret, rolledUntil: until },
    });
    return reply.redirect("/dashboard/events", 303);
  });

  scope.get<IdParams>("/events/:id/delete", async (request, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const endpoint = await orMessage(reply, () => owned(user, request.params.id));
    if (endpoint) return reply.view("delete-event-endpoint.eta", { title: "Delete endpoint", tab: "events", endpoint });
  });

  scope.post<IdParams>("/events/:id/delete", async (request: FastifyRequest<IdParams>, reply) => {
    const user = signedIn(request, reply);
    if (!user) return;
    const endpoint = await orMessage(reply, () => owned(user, request.params.id));
    if (!endpoint) return;
    if (endpoint.kind === "prod" && !(await allowed(request, reply, "delete_production_endpoint"))) return reply;
    const deleted = await orMessage(reply, () => deleteEndpoint(deps, endpoint.id, user.account_id));
    if (!deleted) return;
    await auditAction(app, request, "event_endpoint_deleted", describe(deleted));
    flashes.leave(request, reply, { notice: `Endpoint ${deleted.url} deleted` });
    return reply.redirect("/dashboard/events", 303);
  });
}
