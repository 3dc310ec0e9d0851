import type { DescMethod } from "@bufbuild/protobuf";
import { type MethodAccess, methodPolicyOf } from "../pipeline/method-policy.ts";

// Which credential a method requires, and whether it is rate limited and
// billed: its access option, as the method-policy table holds it.

export type { MethodAccess };

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
