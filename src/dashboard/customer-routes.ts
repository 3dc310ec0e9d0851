import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../context.ts";
import type { CustomerStore } from "../customers/customer-store.ts";
import { eraseCustomer } from "../customers/erase-customer.ts";
import { forgetCustomer, liftForgetMe } from "../customers/forget-customer.ts";
import { getCustomer } from "../customers/get-customer.ts";
import { listCustomers } from "../customers/list-customers.ts";
import { mergeCustomers } from "../customers/merge-customers.ts";
import { unlinkIdentifier } from "../customers/unlink-identifier.ts";
import type { AuditEventName } from "../dashboard-auth/audit-log.ts";
import { isCustomerRef } from "../domain/customer-ref.ts";
import { DomainError, validationError } from "../domain/domain-error.ts";
import type { Mode, Tenant } from "../domain/tenant.ts";
import { auditAction } from "./audit-action.ts";
import { formErrors, orMessage } from "./messages.ts";
import { allowed } from "./role-guard.ts";
import { signedIn } from "./session-guard.ts";

// The Customers page: the account's customer records through the same use
// cases as /v1/customers, for the data mode the user picks. Nothing is billed:
// the account's own people are looking, not its callers.

type Form = Record<string, string | undefined>;
type RefParams = { Params: { ref: string } };
const text = (source: unknown, name: string) => {
  const value = (source as Form | undefined)?.[name];
  return typeof value === "string" ? value.trim() : "";
};
const modeOf = (source: unknown): Mode => (text(source, "mode") === "prod" ? "prod" : "test");

/** What a search box holds: a customer_ref (a UUID), an external id (key:value) or else a number. */
function searchOf(query: string): { ref?: string; ani?: string; externalId?: string } {
  if (isCustomerRef(query)) return { ref: query.toLowerCase() };
  if (query.includes(":")) return { externalId: query };
  return { ani: query };
}

export function registerCustomerRoutes(scope: FastifyInstance, app: AppContext): void {
  const store: CustomerStore = {
    db: app.database.db,
    defaultRegion: app.config.defaultRegion,
    erasures: app.erasures,
    forgetMe: app.forgetMe,
  };
  const op = () => ({ now: app.clock.now() });
  const recordPath = (ref: string, mode: Mode) => `/dashboard/customers/${encodeURIComponent(ref)}?mode=${mode}`;
  /** The signed-in user's tenant in the mode the request names, or undefined once redirected to sign-in. */
  const tenantOf = (request: FastifyRequest, reply: FastifyReply, source: unknown): Tenant | undefined => {
    const user = signedIn(request, reply);
    return user && { accountId: user.account_id, mode: modeOf(source) };
  };
  // The log names customers by ref and mode only: it must not keep what an erasure removed.
  const audit = (request: FastifyRequest, tenant: Tenant, event: AuditEventName, detail: string) =>
    auditAction(app, request, event, `${detail} (${tenant.mode})`);
  const view = (reply: FastifyReply, template: string, mode: Mode, values: Record<string, unknown>, status = 200) =>
    reply.code(status).view(template, { title: "Customers", tab: "customers", mode, ...values });

  scope.get("/customers", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.query);
    if (!tenant) return;
    const query = text(request.query, "q");
    const base = {
      query,
      results: undefined,
      error: "",
      erased: text(request.query, "erased"),
      forgotten: text(request.query, "forgotten"),
      lifted: text(request.query, "lifted"),
      liftError: "",
    };
    if (query === "") return view(reply, "customers.eta", tenant.mode, base);
    const search = searchOf(query);
    try {
      if (search.ref) {
        // A ref opens its record; one that names no customer here is an empty result, as a number would be.
        const found = await getCustomer(store, tenant, search.ref, op()).catch((error: unknown) => {
          if (error instanceof DomainError && error.code === "not_found") return undefined;
          throw error;
        });
        if (found) return reply.redirect(recordPath(search.ref, tenant.mode), 303);
        return view(reply, "customers.eta", tenant.mode, { ...base, results: [] });
      }
      const results = await listCustomers(store, tenant, search, op());
      return view(reply, "customers.eta", tenant.mode, { ...base, results });
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      const error_ = Object.values(errors)[0] ?? message;
      return view(reply, "customers.eta", tenant.mode, { ...base, error: error_ }, status);
    }
  });

  scope.get<RefParams>("/customers/:ref", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.query);
    if (!tenant) return;
    const record = await orMessage(reply, () => getCustomer(store, tenant, request.params.ref, op()));
    if (!record) return;
    // A merged ref shows its survivor: say so rather than show a different ref silently.
    const alias = record.customerRef === request.params.ref.toLowerCase() ? "" : request.params.ref;
    return view(reply, "customer.eta", tenant.mode, { record, alias, notice: text(request.query, "notice") });
  });

  scope.post<RefParams>("/customers/:ref/unlink", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.body);
    if (!tenant) return;
    const query = {
      ani: text(request.body, "ani") || undefined,
      externalId: text(request.body, "external_id") || undefined,
    };
    const record = await orMessage(reply, () => unlinkIdentifier(store, tenant, request.params.ref, query, op()));
    if (!record) return;
    await audit(
      request,
      tenant,
      "identifier_unlinked",
      `${query.ani ? "a number" : "an external id"} from ${record.customerRef}`,
    );
    return reply.redirect(`${recordPath(record.customerRef, tenant.mode)}&notice=unlinked`, 303);
  });

  scope.get<RefParams>("/customers/:ref/erase", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.query);
    if (!tenant) return;
    const record = await orMessage(reply, () => getCustomer(store, tenant, request.params.ref, op()));
    if (record) return view(reply, "erase-customer.eta", tenant.mode, { record });
  });

  scope.post<RefParams>("/customers/:ref/erase", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.body);
    if (!tenant) return;
    if (tenant.mode === "prod" && !(await allowed(request, reply, "erase_customer"))) return reply;
    const erased = await orMessage(reply, () => eraseCustomer(store, tenant, request.params.ref, op()));
    if (!erased) return;
    await audit(request, tenant, "customer_erased", erased.customerRef);
    return reply.redirect(`/dashboard/customers?mode=${tenant.mode}&erased=${erased.customerRef}`, 303);
  });

  // "Do not remember" erases too, so it asks first and needs an owner in production data, as erasing does.
  scope.get<RefParams>("/customers/:ref/forget", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.query);
    if (!tenant) return;
    const record = await orMessage(reply, () => getCustomer(store, tenant, request.params.ref, op()));
    if (record) return view(reply, "forget-customer.eta", tenant.mode, { record });
  });

  scope.post<RefParams>("/customers/:ref/forget", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.body);
    if (!tenant) return;
    if (tenant.mode === "prod" && !(await allowed(request, reply, "erase_customer"))) return reply;
    const forgotten = await orMessage(reply, () => forgetCustomer(store, tenant, request.params.ref, op()));
    if (!forgotten) return;
    await audit(request, tenant, "customer_forgotten", forgotten.customerRef);
    return reply.redirect(`/dashboard/customers?mode=${tenant.mode}&forgotten=${forgotten.customerRef}`, 303);
  });

  // Lifting is named by one identifier: the mark keeps no ref, and no identifier in clear to list.
  scope.post("/customers/forget-me/lift", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.body);
    if (!tenant) return;
    if (tenant.mode === "prod" && !(await allowed(request, reply, "erase_customer"))) return reply;
    const identifier = text(request.body, "identifier");
    const query = identifier.includes(":") ? { externalId: identifier } : { ani: identifier };
    try {
      const lifted = await liftForgetMe(store, tenant, query);
      if (lifted.lifted) await audit(request, tenant, "forget_me_lifted", `${lifted.identifiersUnmarked} identifiers`);
      return reply.redirect(`/dashboard/customers?mode=${tenant.mode}&lifted=${lifted.lifted ? "yes" : "no"}`, 303);
    } catch (error) {
      const { status, errors, message } = formErrors(error);
      const liftError = Object.values(errors)[0] ?? message;
      const base = { query: "", results: undefined, error: "", erased: "", forgotten: "", lifted: "", liftError };
      return view(reply, "customers.eta", tenant.mode, base, status);
    }
  });

  // Merging asks first, showing both records, since it cannot be undone.
  scope.get<RefParams>("/customers/:ref/merge", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.query);
    if (!tenant) return;
    const from = text(request.query, "from");
    const both = await orMessage(reply, async () => {
      if (from === "") throw validationError([{ path: ["from"], message: "Give the customer_ref to merge from" }]);
      const into = await getCustomer(store, tenant, request.params.ref, op());
      const merged = await getCustomer(store, tenant, from, op());
      if (merged.customerRef === into.customerRef) {
        throw validationError([{ path: ["from"], message: "Both refs name the same customer" }]);
      }
      return { into, from: merged };
    });
    if (both) return view(reply, "merge-customers.eta", tenant.mode, both);
  });

  scope.post<RefParams>("/customers/:ref/merge", async (request, reply) => {
    const tenant = tenantOf(request, reply, request.body);
    if (!tenant) return;
    if (tenant.mode === "prod" && !(await allowed(request, reply, "merge_customers"))) return reply;
    const from = text(request.body, "from");
    const record = await orMessage(reply, () => mergeCustomers(store, tenant, request.params.ref, from, op()));
    if (!record) return;
    await audit(request, tenant, "customers_merged", `${from} → ${record.customerRef}`);
    return reply.redirect(`${recordPath(record.customerRef, tenant.mode)}&notice=merged`, 303);
  });
}
