import type { Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import { DomainError } from "../domain/domain-error.ts";
import { domainErrorToConnect, isUnexpected, publicError } from "../pipeline/public-error.ts";
import { isDatabaseUnavailable } from "../store/database.ts";

/**
 * The chain's outer boundary (src/interceptor-chain.ts): whatever a call throws leaves it in its public form
 * (src/pipeline/public-error.ts). What the client cannot be shown is logged here,
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

/**
 * The chain's inner boundary, its last interceptor: a domain error leaves the implementation as its public
 * ConnectError, for every method, so the guards between it and the error boundary see an implementation's
 * errors in one form (the quota guard writes its header on them, the webhook triage reads a limit's refusal).
 */
export function implementationErrors(): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      throw error instanceof DomainError ? domainErrorToConnect(error) : error;
    }
  };
}
