import { type DescMethod, getOption } from "@bufbuild/protobuf";
import { Access, access } from "../../gen/callercontext/v1/options_pb.ts";

// Which credential a method requires, read once per method from its proto option.

export type MethodAccess = "api_key" | "public" | "admin" | "integration";

const cache = new WeakMap<DescMethod, MethodAccess>();

export function accessOf(method: DescMethod): MethodAccess {
  let result = cache.get(method);
  if (result === undefined) {
    const declared = getOption(method, access);
    result =
      declared === Access.PUBLIC
        ? "public"
        : declared === Access.ADMIN
          ? "admin"
          : declared === Access.INTEGRATION
            ? "integration"
            : "api_key";
    cache.set(method, result);
  }
  return result;
}
