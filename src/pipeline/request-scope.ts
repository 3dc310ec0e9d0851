import type { DescMethod } from "@bufbuild/protobuf";
import { type Code, type ContextValues, createContextKey } from "@connectrpc/connect";
import { codeFromString, codeToString } from "@connectrpc/connect/protocol-connect";
import { parseTimeout } from "@connectrpc/connect/protocol-grpc";
import type { FastifyInstance } from "fastify";
import type { Tier } from "../domain/tiers.ts";
import { deadlineKey } from "./context-values.ts";

// A request from arrival to report. While it is served, its scope is what the
// host knows of it and the one place each host writes down what it learned:
// the protocol, the method, the route, the code its client was answered. Once
// it is done, the record read from the scope is reported to the observers:
// the one completion point of every request, whatever its protocol, each
// reported exactly once to every observer (the access log is one of them).
// How long it may take, counted from its arrival, is its deadline (below).

export type Protocol = "rest" | "connect" | "grpc" | "grpc-web" | "http";

export interface RequestRecord {
  readonly requestId: string;
  readonly protocol: Protocol;
  /** The HTTP method ("POST"). */
  readonly httpMethod: string;
  /** The request path, without its query string. */
  readonly path: string;
  /** "callercontext.v1.CallerContextService", when the request reached a service. */
  readonly service?: string;
  /** "StartCall", when the request reached a method. */
  readonly method?: string;
  /** The REST route template ("/v1/calls/start"), for REST requests. */
  readonly route?: string;
  /** 499 when the client went away before its answer was sent. */
  readonly httpStatus: number;
  /** The outcome as a Connect code name ("ok", "unauthenticated", …), for requests that reached a method. */
  readonly code?: string;
  readonly durationMs: number;
  /** Why a platform webhook was answered "no context", when it was. */
  readonly noContext?: string;
  /** The API key that authenticated the request, if one did. */
  readonly keyId?: string;
  readonly tier?: Tier;
  readonly peer: string;
}

export type RequestObserver = (record: RequestRecord) => void;

export interface RequestObservers {
  /** Adds an observer; the function returned removes it. */
  add(observer: RequestObserver): () => void;
  notify(record: RequestRecord): void;
}

export function createRequestObservers(onObserverError: (error: unknown) => void): RequestObservers {
  const observers: RequestObserver[] = [];
  return {
    add(observer) {
      observers.push(observer);
      return () => {
        const index = observers.indexOf(observer);
        if (index >= 0) observers.splice(index, 1);
      };
    },
    notify(record) {
      for (const observer of observers) {
        try {
          observer(record);
        } catch (error) {
          // An observer's fault must not reach the request or the other observers.
          onObserverError(error);
        }
      }
    },
  };
}

const registries = new WeakMap<FastifyInstance, RequestObservers>();

/** Makes `observers` the registry of the app's requests (done once, by createApp). */
export function attachRequestObservers(app: FastifyInstance, observers: RequestObservers): void {
  registries.set(app, observers);
}

/** Calls `observer` once for every request the app finishes; returns the function that stops it. */
export function onRequestDone(app: FastifyInstance, observer: RequestObserver): () => void {
  const observers = registries.get(app);
  if (observers === undefined) throw new Error("not an app built by createApp");
  return observers.add(observer);
}

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

// The one place a call's deadline is decided: the earlier of the method's time budget (set by the time
// budget guard, or by the webhook triage for a platform's inbound call) and the client's own, which gRPC
// sends as grpc-timeout ("250m", "1S") and the Connect protocol as connect-timeout-ms. A REST client sends
// neither. Admission, the call's write and the metrics all read it from here.

/**
 * Epoch ms by which the call must be answered, if anything set one. The client's timeout counts from the
 * request's arrival, when the client started waiting.
 */
export function effectiveDeadline(values: ContextValues, header: Headers): number | undefined {
  const arrivedAt = values.get(requestScopeKey)?.receivedAt ?? Date.now();
  return earliest(values.get(deadlineKey), clientDeadline(header, arrivedAt));
}

/** Epoch ms by which the client stops waiting, if it said; a malformed value is no deadline (Connect answers it). */
export function clientDeadline(header: Headers, now: number = Date.now()): number | undefined {
  const grpc = header.get("grpc-timeout");
  if (grpc !== null) {
    const { timeoutMs } = parseTimeout(grpc, Number.MAX_SAFE_INTEGER);
    return timeoutMs === undefined ? undefined : now + timeoutMs;
  }
  const connect = Number(header.get("connect-timeout-ms") ?? Number.NaN);
  return Number.isSafeInteger(connect) && connect > 0 ? now + connect : undefined;
}

/** The earlier of two deadlines, either of which may be missing. */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
