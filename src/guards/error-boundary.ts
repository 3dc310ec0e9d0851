import type { Interceptor } from "@connectrpc/connect";
import { DomainError } from "../domain/domain-error.ts";
import { domainErrorToConnect, publicError } from "../pipeline/public-error.ts";
import { requestScopeKey } from "../pipeline/request-scope.ts";
import { type ErrorLog, logUnexpected } from "../pipeline/unexpected-errors.ts";

/**
 * The chain's outer boundary (src/interceptor-chain.ts): whatever a call throws leaves it in its public form
 * (src/pipeline/public-error.ts). What the client cannot be shown is logged here
 * (src/pipeline/unexpected-errors.ts); the hosts see only the public form, so
 * they never log it again.
 */
export function errorBoundary(log: ErrorLog): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      const scope = req.contextValues.get(requestScopeKey);
      logUnexpected(log, error, {
        reqId: scope?.requestId,
        rpc: req.method.name,
        route: scope?.route,
        aborted: req.signal.aborted,
      });
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
