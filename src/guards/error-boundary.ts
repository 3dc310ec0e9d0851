import type { Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import { isUnexpected, publicError } from "../rpc/public-error.ts";
import { isDatabaseUnavailable } from "../store/database.ts";

/**
 * The outermost guard (src/interceptor-chain.ts): whatever a call throws leaves it in its public form
 * (src/rpc/public-error.ts). What the client cannot be shown is logged here,
 * once: a database that cannot be reached as a warning (the client is told to
 * retry), anything else as the bug it is.
 */
export function errorBoundary(log: FastifyBaseLogger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (isUnexpected(error) && !req.signal.aborted) {
        if (isDatabaseUnavailable(error)) log.warn({ err: error, rpc: req.method.name }, "database unavailable");
        else log.error({ err: error, rpc: req.method.name }, "unexpected error");
      }
      throw publicError(error, req.signal);
    }
  };
}
