import { STATUS_CODES } from "node:http";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectError } from "@connectrpc/connect";
import type { FastifyReply } from "fastify";
import {
  IdempotencyKeyMismatchSchema,
  QuotaExhaustedSchema,
  RateLimitExceededSchema,
  ValidationFailureSchema,
} from "../../gen/callercontext/v1/errors_pb.ts";
import { restHeaderObject } from "./headers.ts";
import { publicError } from "./public-error.ts";

// Any error → the spec's JSON error: {error: <status phrase>, message, ...extra}.
// The Connect code picks the status; typed details refine it and add fields.

export interface HttpError {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

/** The HTTP status of a Connect code: the one switch REST, the Fastify host and the dashboard answer by. */
export function httpStatusOf(code: Code): number {
  switch (code) {
    case Code.InvalidArgument:
      return 400;
    case Code.Unauthenticated:
      return 401;
    case Code.PermissionDenied:
      return 403;
    case Code.NotFound:
      return 404;
    case Code.AlreadyExists:
    case Code.FailedPrecondition:
    case Code.Aborted:
      return 409;
    case Code.ResourceExhausted:
      return 429;
    case Code.Canceled:
      return 499;
    case Code.Unimplemented:
      return 501;
    case Code.Unavailable:
    // A ringing phone cannot wait: a call past its deadline is one the client proceeds without (503).
    case Code.DeadlineExceeded:
      return 503;
    default:
      return 500;
  }
}

/**
 * Any error as the REST host answers it. A request Fastify itself refused
 * (a body too large, a Content-Type no route reads) keeps the status Fastify
 * gave it; everything else is answered by its public form (publicError).
 */
export function errorResponse(error: unknown): HttpError {
  const transportStatus = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof transportStatus === "number") {
    return body(
      transportStatus,
      transportStatus < 500 ? transportMessage(transportStatus, (error as Error).message) : "Internal server error",
    );
  }
  return connectErrorToHttp(publicError(error));
}

export function connectErrorToHttp(error: ConnectError): HttpError {
  const headers = restHeaderObject(error.metadata);
  const validation = error.findDetails(ValidationFailureSchema)[0];
  if (validation) {
    return body(
      400,
      error.rawMessage,
      { details: { issues: validation.issues.map((issue) => ({ path: issue.path, message: issue.message })) } },
      headers,
    );
  }
  if (error.findDetails(IdempotencyKeyMismatchSchema).length > 0) return body(422, error.rawMessage, {}, headers);
  const quota = error.findDetails(QuotaExhaustedSchema)[0];
  if (quota) {
    return body(
      402,
      error.rawMessage,
      { quota_remaining: quota.quotaRemaining, billing_account_id: quota.billingAccountId },
      headers,
    );
  }
  const rate = error.findDetails(RateLimitExceededSchema)[0];
  if (rate) {
    return body(
      429,
      error.rawMessage,
      {
        retryAfter: rate.retryAfterSeconds,
        currentUsage: rate.currentUsage,
        limit: rate.limit,
        resetAt: rate.resetAt ? timestampDate(rate.resetAt).toISOString() : null,
      },
      headers,
    );
  }
  const status = httpStatusOf(error.code);
  // Below 500 the message is ours to show; above it, it may carry internals.
  return body(status, status < 500 || status === 503 ? error.rawMessage : "Internal server error", {}, headers);
}

export function body(
  status: number,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: Record<string, string>,
): HttpError {
  return { status, body: { error: STATUS_CODES[status] ?? "Error", message, ...extra }, headers };
}

/** Sends an error answer on a Fastify reply. */
export function sendError(reply: FastifyReply, { status, body, headers }: HttpError) {
  return reply
    .code(status)
    .headers(headers ?? {})
    .send(body);
}

/** Fastify's messages for transport errors, reworded for API clients. */
function transportMessage(status: number, fallback: string): string {
  if (status === 413) return "Request body is too large";
  if (status === 415) return "Content-Type must be application/json";
  return fallback;
}
