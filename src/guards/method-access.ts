import { type DescMethod, getOption } from "@bufbuild/protobuf";
import { Access, access } from "../../gen/callercontext/v1/options_pb.ts";

// Which credential a method requires, and whether it is rate limited and
// billed, read once per method from its proto option.

export type MethodAccess =
  | "api_key"
  | "api_key_not_billed"
  | "api_key_not_metered"
  | "public"
  | "admin"
  | "integration";

const ACCESS: Record<number, MethodAccess> = {
  [Access.PUBLIC]: "public",
  [Access.ADMIN]: "admin",
  [Access.NOT_BILLED]: "api_key_not_billed",
  [Access.NOT_METERED]: "api_key_not_metered",
  [Access.INTEGRATION]: "integration",
};

const cache = new WeakMap<DescMethod, MethodAccess>();

export function accessOf(method: DescMethod): MethodAccess {
  let result = cache.get(method);
  if (result === undefined) {
    result = ACCESS[getOption(method, access)] ?? "api_key";
    cache.set(method, result);
  }
  return result;
}

/** Whether a call of the method counts against its key's rolling window. */
export function isRateLimited(method: DescMethod): boolean {
  return accessOf(method) !== "api_key_not_metered";
}

/** Whether a successful call of the method takes a quota credit (and is refused without one). */
export function isBilled(method: DescMethod): boolean {
  const result = accessOf(method);
  return result === "api_key" || result === "integration";
}
