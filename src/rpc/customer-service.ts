import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import type { AppContext } from "../context.ts";
import type { CustomerStore } from "../customers/customer-store.ts";
import { eraseCustomer } from "../customers/erase-customer.ts";
import { forgetCustomer, liftForgetMe } from "../customers/forget-customer.ts";
import { getCustomerBilled } from "../customers/get-customer.ts";
import { listCustomersBilled } from "../customers/list-customers.ts";
import { mergeCustomersBilled } from "../customers/merge-customers.ts";
import { unlinkIdentifierBilled } from "../customers/unlink-identifier.ts";
import { chargeKey, decodeIssuesKey } from "../pipeline/context-values.ts";
import { billedAnswer, requirePrincipal } from "./caller-context-service.ts";
import { customerRecordToProto, customerSummaryToProto } from "./customer-mapping.ts";

/**
 * The methods whose use cases refuse what the host could not decode themselves, with what their own validation
 * finds (an identifier query, a merge's `from`): one 400 names every offending field. The others have nothing to
 * validate beyond the customer_ref in their path, which is a 404 when it names no customer.
 */
export const CUSTOMER_METHODS_VALIDATED_WITH_DECODE_ISSUES: readonly DescMethod[] = [
  CustomerService.method.listCustomers,
  CustomerService.method.unlinkIdentifier,
  CustomerService.method.liftForgetMe,
  CustomerService.method.mergeCustomers,
];

/** The customer records of the calling key's tenant, shared by REST, Connect and gRPC. */
export function createCustomerService(app: AppContext): ServiceImpl<typeof CustomerService> {
  const store: CustomerStore = {
    db: app.database.db,
    defaultRegion: app.config.defaultRegion,
    erasures: app.erasures,
    forgetMe: app.forgetMe,
  };
  const op = (context: HandlerContext) => ({ now: app.clock.now(), charge: context.values.get(chargeKey) });
  return {
    getCustomer: async (request, context) => {
      const tenant = tenantOf(context);
      const found = await getCustomerBilled(store, tenant, request.customerRef, op(context));
      return customerRecordToProto(billedAnswer(context, found));
    },
    listCustomers: async (request, context) => {
      const tenant = tenantOf(context);
      const query = identifierQuery(request, context);
      const found = await listCustomersBilled(store, tenant, query, op(context));
      return { customers: billedAnswer(context, found).map(customerSummaryToProto) };
    },
    eraseCustomer: async (request, context) => {
      const tenant = tenantOf(context);
      const { customerRef } = await eraseCustomer(store, tenant, request.customerRef, op(context));
      return { customerRef, erased: true };
    },
    forgetCustomer: async (request, context) => {
      const tenant = tenantOf(context);
      const forgotten = await forgetCustomer(store, tenant, request.customerRef, op(context));
      return { ...forgotten, erased: true };
    },
    liftForgetMe: async (request, context) => {
      const query = identifierQuery(request, context);
      return liftForgetMe(store, tenantOf(context), query);
    },
    mergeCustomers: async (request, context) => {
      const tenant = tenantOf(context);
      const decodeIssues = context.values.get(decodeIssuesKey);
      const merged = await mergeCustomersBilled(
        store,
        tenant,
        request.customerRef,
        request.from,
        op(context),
        decodeIssues,
      );
      return customerRecordToProto(billedAnswer(context, merged));
    },
    unlinkIdentifier: async (request, context) => {
      const tenant = tenantOf(context);
      const query = identifierQuery(request, context);
      const unlinked = await unlinkIdentifierBilled(store, tenant, request.customerRef, query, op(context));
      return customerRecordToProto(billedAnswer(context, unlinked));
    },
  };
}

function tenantOf(context: HandlerContext) {
  return requirePrincipal(context).tenant;
}

function identifierQuery(request: { ani?: string; externalId?: string }, context: HandlerContext) {
  return { ani: request.ani, externalId: request.externalId, decodeIssues: context.values.get(decodeIssuesKey) };
}
