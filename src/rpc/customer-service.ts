import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { CustomerService } from "../../gen/callercontext/v1/customers_pb.ts";
import type { AppContext } from "../context.ts";
import type { CustomerStore } from "../customers/customer-store.ts";
import { eraseCustomer } from "../customers/erase-customer.ts";
import { forgetCustomer, liftForgetMe } from "../customers/forget-customer.ts";
import { getCustomer } from "../customers/get-customer.ts";
import { listCustomers } from "../customers/list-customers.ts";
import { mergeCustomers } from "../customers/merge-customers.ts";
import { unlinkIdentifier } from "../customers/unlink-identifier.ts";
import { billKey } from "../guards/context-values.ts";
import { requirePrincipal } from "./caller-context-service.ts";
import { customerRecordToProto, customerSummaryToProto } from "./customer-mapping.ts";
import { withDomainErrors } from "./public-error.ts";

/** The customer records of the calling key's tenant, shared by REST, Connect and gRPC. */
export function createCustomerService(app: AppContext): ServiceImpl<typeof CustomerService> {
  const store: CustomerStore = {
    db: app.database.db,
    defaultRegion: app.config.defaultRegion,
    erasures: app.erasures,
    forgetMe: app.forgetMe,
  };
  const op = (context: HandlerContext) => ({ now: app.clock.now(), bill: context.values.get(billKey) });
  return {
    getCustomer: withDomainErrors(async (request, context) => {
      const tenant = tenantOf(context);
      return customerRecordToProto(await getCustomer(store, tenant, request.customerRef, op(context)));
    }),
    listCustomers: withDomainErrors(async (request, context) => {
      const tenant = tenantOf(context);
      const query = { ani: request.ani, externalId: request.externalId };
      const found = await listCustomers(store, tenant, query, op(context));
      return { customers: found.map(customerSummaryToProto) };
    }),
    eraseCustomer: withDomainErrors(async (request, context) => {
      const tenant = tenantOf(context);
      const { customerRef } = await eraseCustomer(store, tenant, request.customerRef, op(context));
      return { customerRef, erased: true };
    }),
    forgetCustomer: withDomainErrors(async (request, context) => {
      const tenant = tenantOf(context);
      const forgotten = await forgetCustomer(store, tenant, request.customerRef, op(context));
      return { ...forgotten, erased: true };
    }),
    liftForgetMe: withDomainErrors(async (request, context) => {
      const query = { ani: request.ani, externalId: request.externalId };
      return liftForgetMe(store, tenantOf(context), query);
    }),
    mergeCustomers: withDomainErrors(async (request, context) => {
      const tenant = tenantOf(context);
      return customerRecordToProto(await mergeCustomers(store, tenant, request.customerRef, request.from, op(context)));
    }),
    unlinkIdentifier: withDomainErrors(async (request, context) => {
      const tenant = tenantOf(context);
      const query = { ani: request.ani, externalId: request.externalId };
      return customerRecordToProto(await unlinkIdentifier(store, tenant, request.customerRef, query, op(context)));
    }),
  };
}

function tenantOf(context: HandlerContext) {
  return requirePrincipal(context).tenant;
}
