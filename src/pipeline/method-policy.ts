import { type DescMethod, getOption } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import {
  Access,
  Admission,
  access,
  admission,
  Budget,
  budget,
  without_database as withoutDatabase,
} from "../../gen/callercontext/v1/options_pb.ts";

// Everything the guards decide per method, read once per method from its
// proto options (proto/callercontext/v1/options.proto): the guards compare
// these values, never generated descriptors.

export type MethodAccess =
  | "api_key"
  | "api_key_not_billed"
  | "api_key_not_metered"
  | "public"
  | "admin"
  | "integration";

/** How the admission control treats the method (see the Admission option). */
export type MethodAdmission = "shed" | "completes_call" | "never_shed" | "webhook_triage";

export interface MethodPolicy {
  readonly access: MethodAccess;
  /** Which of the configured time budgets holds, if any. */
  readonly budget: "start" | "end" | undefined;
  readonly admission: MethodAdmission;
  /** False for a method served before the database is ready (health). */
  readonly needsDatabase: boolean;
}

const ACCESS: Record<number, MethodAccess> = {
  [Access.PUBLIC]: "public",
  [Access.ADMIN]: "admin",
  [Access.NOT_BILLED]: "api_key_not_billed",
  [Access.NOT_METERED]: "api_key_not_metered",
  [Access.INTEGRATION]: "integration",
};

const BUDGET: Record<number, MethodPolicy["budget"]> = {
  [Budget.START]: "start",
  [Budget.END]: "end",
};

const ADMISSION: Record<number, MethodAdmission> = {
  [Admission.COMPLETES_CALL]: "completes_call",
  [Admission.NEVER_SHED]: "never_shed",
  [Admission.WEBHOOK_TRIAGE]: "webhook_triage",
};

const table = new WeakMap<DescMethod, MethodPolicy>();

export function methodPolicyOf(method: DescMethod): MethodPolicy {
  let policy = table.get(method);
  if (policy === undefined) {
    policy = {
      access: ACCESS[getOption(method, access)] ?? "api_key",
      budget: BUDGET[getOption(method, budget)],
      admission: ADMISSION[getOption(method, admission)] ?? "shed",
      needsDatabase: !getOption(method, withoutDatabase),
    };
    table.set(method, policy);
  }
  return policy;
}

// Which credential a method requires, and whether it is rate limited and billed: its access option, as the
// table holds it.

export function accessOf(method: DescMethod): MethodAccess {
  return methodPolicyOf(method).access;
}

/** Whether a call of the method counts against its key's rolling window. */
export function isRateLimited(method: DescMethod): boolean {
  return accessOf(method) !== "api_key_not_metered";
}

/**
 * Whether the method is answered with the credits left without taking one (an erasure): every
 * authenticated answer carries the limit headers; GetUsage (not metered) writes its own.
 */
export function reportsQuotaUnbilled(method: DescMethod): boolean {
  return accessOf(method) === "api_key_not_billed";
}

/** Whether a successful call of the method takes a quota credit (and is refused without one). */
export function isBilled(method: DescMethod): boolean {
  const result = accessOf(method);
  return result === "api_key" || result === "integration";
}

/**
 * `interceptor` for the methods of one access only: the others go straight on, and the interceptor is not
 * even applied to them (an API call never enters the webhook triage).
 */
export function onlyFor(access: MethodAccess, interceptor: Interceptor): Interceptor {
  return (next) => (req) => (accessOf(req.method) === access ? interceptor(next)(req) : next(req));
}
