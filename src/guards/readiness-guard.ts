import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { methodPolicyOf } from "../pipeline/method-policy.ts";
import { RETRY_AFTER_SECONDS, retryAfter } from "../pipeline/retry-after.ts";

// The service listens before its database is reachable and migrated, so that a
// load balancer sees it starting; until then every call but the health check,
// which reports the database itself, is refused with 503 before any guard reads the store.

export function readinessGuard(isReady: () => boolean): Interceptor {
  return (next) => async (req) => {
    if (isReady() || !methodPolicyOf(req.method).needsDatabase) return next(req);
    throw new ConnectError(
      "Service is starting: the database is not ready yet",
      Code.Unavailable,
      retryAfter(RETRY_AFTER_SECONDS.starting),
    );
  };
}
