import { ConnectError } from "@connectrpc/connect";
import { DomainError } from "../domain/domain-error.ts";
import { isDatabaseUnavailable } from "../store/database.ts";

// The one place that decides whether an error is unexpected and logs it. The
// chain's error boundary (src/guards/error-boundary.ts) hands every call's
// error here and passes it on in its public form, which the hosts below it
// never log again; the hosts hand here only what failed outside the chain (a
// body not read, a Fastify hook, a dashboard page). So each unexpected error
// is logged once, with the request it failed.

/** The part of a logger an unexpected error is written to (pino's and Fastify's fit). */
export interface ErrorLog {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** The request an error failed, as far as the place that caught it knows it. */
export interface FailedRequest {
  readonly reqId?: string;
  /** The method, for a call of the contract. */
  readonly rpc?: string;
  /** The route template, for a REST call or a page. */
  readonly route?: string;
  /** Given up on (its client went, its deadline passed): what it throws then is the abort's echo, not a bug. */
  readonly aborted?: boolean;
}

/**
 * Whether an error says nothing its client may read: not a ConnectError or a domain error (both public), nor a
 * request Fastify refused below 500 (a body too large, a Content-Type no route reads).
 */
export function isUnexpected(error: unknown): boolean {
  if (error instanceof ConnectError || error instanceof DomainError) return false;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return !(typeof status === "number" && status < 500);
}

/**
 * Logs an unexpected error once: a database that cannot be reached as a warning (its client is told to retry),
 * anything else as the bug it is. Expected errors and those of an abandoned request are not logged.
 */
export function logUnexpected(log: ErrorLog, error: unknown, request: FailedRequest): void {
  if (!isUnexpected(error) || request.aborted) return;
  const fields = { err: error, reqId: request.reqId, rpc: request.rpc, route: request.route };
  if (isDatabaseUnavailable(error)) log.warn(fields, "database unavailable");
  else log.error(fields, "unexpected error");
}
