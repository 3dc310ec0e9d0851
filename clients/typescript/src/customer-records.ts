import { createClient, type Transport } from "@connectrpc/connect";
import type { CallOptions, CallRunner } from "./call-runner.ts";
import {
  CustomerService,
  type CustomerSummary,
  type EraseCustomerResponse,
  type ForgetCustomerResponse,
  type GetCustomerResponse,
  type LiftForgetMeResponse,
  type MergeCustomersResponse,
  type UnlinkIdentifierResponse,
} from "./gen/callercontext/v1/customers_pb.ts";

/** One identifier: a caller number, or an external id as `{key, value}`. */
export type Identifier =
  | { readonly ani: string }
  | { readonly externalId: { readonly key: string; readonly value: string } };

export interface CustomerRecords {
  get(customerRef: string, options?: CallOptions): Promise<GetCustomerResponse>;
  /** The customers (at most one) a number or an external id belongs to. */
  list(identifier: Identifier, options?: CallOptions): Promise<CustomerSummary[]>;
  /** Erases the customer and everything that holds their data; not billed. */
  erase(customerRef: string, options?: CallOptions): Promise<EraseCustomerResponse>;
  /** Moves everything of `from` to `customerRef`; `from` becomes an alias of it. */
  merge(customerRef: string, from: string, options?: CallOptions): Promise<MergeCustomersResponse>;
  unlink(customerRef: string, identifier: Identifier, options?: CallOptions): Promise<UnlinkIdentifierResponse>;
  /** The caller's "do not remember me": erases them and marks their identifiers; not billed. */
  forgetMe(customerRef: string, options?: CallOptions): Promise<ForgetCustomerResponse>;
  /** Lifts the mark covering one identifier: the next call from them is remembered again. */
  liftForgetMe(identifier: Identifier, options?: CallOptions): Promise<LiftForgetMeResponse>;
}

export function createCustomerRecords(transport: Transport, runner: CallRunner): CustomerRecords {
  const customers = createClient(CustomerService, transport);
  return {
    get: (customerRef, options) => runner.run("repeatable", options, (o) => customers.getCustomer({ customerRef }, o)),
    async list(identifier, options) {
      const found = await runner.run("repeatable", options, (o) =>
        customers.listCustomers(identifierFields(identifier), o),
      );
      return found.customers;
    },
    erase: (customerRef, options) => runner.run("once", options, (o) => customers.eraseCustomer({ customerRef }, o)),
    merge: (customerRef, from, options) =>
      runner.run("once", options, (o) => customers.mergeCustomers({ customerRef, from }, o)),
    unlink: (customerRef, identifier, options) =>
      runner.run("once", options, (o) =>
        customers.unlinkIdentifier({ customerRef, ...identifierFields(identifier) }, o),
      ),
    forgetMe: (customerRef, options) =>
      runner.run("once", options, (o) => customers.forgetCustomer({ customerRef }, o)),
    liftForgetMe: (identifier, options) =>
      runner.run("once", options, (o) => customers.liftForgetMe(identifierFields(identifier), o)),
  };
}

// The wire form of an external id is "key:value", split by the service at the first colon.
function identifierFields(identifier: Identifier): { ani?: string; externalId?: string } {
  return "ani" in identifier
    ? { ani: identifier.ani }
    : { externalId: `${identifier.externalId.key}:${identifier.externalId.value}` };
}
