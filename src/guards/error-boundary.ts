import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import { isDatabaseUnavailable } from "../store/engine/database-errors.ts";

export const RETRY_AFTER_UNAVAILABLE_SECONDS = 1;

/**
 * The outermost interceptor. A database that cannot be reached is a 503 the
 * client may retry; anything else that is not a ConnectError is a bug: it is
 * logged and answered without internals.
 */
export function errorBoundary(log: FastifyBaseLogger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (error instanceof ConnectError) throw error;
      if (req.signal.aborted) {
        throw new ConnectError("The request was cancelled or its deadline passed", Code.DeadlineExceeded);
      }
      if (isDatabaseUnavailable(error)) {
        log.warn({ err: error, rpc: req.method.name }, "database unavailable");
        throw new ConnectError("Service temporarily unavailable", Code.Unavailable, {
          "retry-after": String(RETRY_AFTER_UNAVAILABLE_SECONDS),
        });
      }
      log.error({ err: error, rpc: req.method.name }, "unexpected error");
      throw new ConnectError("Internal server error", Code.Internal);
    }
  };
}
