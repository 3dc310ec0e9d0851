import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { isAdminAuthorization } from "./admin-token.ts";
import { principalKey } from "./context-values.ts";
import type { KeyVerifier } from "./key-verifier.ts";
import { accessOf } from "./method-access.ts";

/** Public methods pass; admin methods need the admin token; every other method an API key. */
export function authenticate(keys: KeyVerifier, adminTokenHash: () => string): Interceptor {
  return (next) => async (req) => {
    const access = accessOf(req.method);
    if (access === "public") return next(req);
    const authorization = req.header.get("authorization");
    if (access === "admin") {
      if (!isAdminAuthorization(authorization, adminTokenHash())) {
        throw new ConnectError("Invalid or missing admin token", Code.Unauthenticated);
      }
      return next(req);
    }
    const verification = await keys.verify(authorization);
    if (!verification.ok) throw new ConnectError(verification.message, Code.Unauthenticated);
    req.contextValues.set(principalKey, verification.principal);
    return next(req);
  };
}
