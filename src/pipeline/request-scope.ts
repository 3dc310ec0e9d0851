import type { DescMethod } from "@bufbuild/protobuf";
import { type Code, type ContextValues, createContextKey } from "@connectrpc/connect";
import { codeFromString, codeToString } from "@connectrpc/connect/protocol-connect";
import type { Protocol } from "./request-observers.ts";

// What the host knows of a request while it is served, and the one place each
// host writes down what it learned: the protocol, the method, the route, the
// code its client was answered. The report when the request is done reads it.

export interface RequestScope {
  readonly requestId: string;
  /** When the request arrived (epoch ms): a deadline that counts every wait starts here. */
  readonly receivedAt: number;
  protocol: Protocol;
  readonly httpMethod: string;
  /** "http", or "https" when a trusted proxy says the client used TLS (the service itself never terminates it). */
  readonly scheme: string;
  readonly path: string;
  readonly peer: string;
  /** Aborted when the client goes away before its answer was sent. */
  readonly signal: AbortSignal;
  readonly values: ContextValues;
  service?: string;
  method?: string;
  route?: string;
  code?: string;
  /** Why a platform webhook was answered "no context" (quota_exhausted, overloaded, ...), when it was. */
  noContext?: string;
}

/** The request's scope, for the interceptors and the handlers that have only the context values. */
export const requestScopeKey = createContextKey<RequestScope | undefined>(undefined, {
  description: "the request as the host opened it",
});

/** What a host has learned about a request; each field is written when given. */
export interface MethodEntry {
  readonly protocol?: Protocol;
  readonly method?: DescMethod;
  /** The REST route template ("/v1/calls/start"). */
  readonly route?: string;
  /** The code the client is answered: 0 for success. */
  readonly code?: Code | 0;
}

export function enterMethod(scope: RequestScope, entry: MethodEntry): void {
  if (entry.protocol !== undefined) scope.protocol = entry.protocol;
  if (entry.method !== undefined) {
    scope.service = entry.method.parent.typeName;
    scope.method = entry.method.name;
  }
  if (entry.route !== undefined) scope.route = entry.route;
  if (entry.code !== undefined) scope.code = codeNameOf(entry.code);
}

/** The numeric gRPC status of a code name as codeNameOf writes it: 0 for "ok", 2 (unknown) for a name it does not know. */
export function grpcStatusOf(name: string): number {
  return name === "ok" ? 0 : (codeFromString(name) ?? 2);
}

/** "ok" for 0, the protocol's snake_case name ("invalid_argument") of any other code, as logs and metrics report it. */
export function codeNameOf(code: Code | 0): string {
  return code === 0 ? "ok" : codeToString(code);
}

/**
 * The protocol a request's Content-Type speaks. A unary Connect request and a
 * REST one both send application/json: `otherwise` is what the caller knows
 * the request to be when the type does not say (REST and Connect are told
 * apart by their routes).
 */
export function protocolOf(contentType: string | null | undefined, otherwise: Protocol): Protocol {
  if (contentType == null) return otherwise;
  if (contentType.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType.startsWith("application/grpc")) return "grpc";
  if (contentType.startsWith("application/connect")) return "connect";
  return otherwise;
}
