import { randomUUID } from "node:crypto";
import type http from "node:http";
import type http2 from "node:http2";
import { Code, ConnectError, createContextValues, type Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import { peerAddressKey, principalKey } from "../pipeline/context-values.ts";
import {
  codeNameOf,
  enterMethod,
  protocolOf,
  type RequestObserver,
  type RequestObservers,
  type RequestScope,
  requestScopeKey,
} from "../pipeline/request-scope.ts";

// What every request gets on arrival, whatever its protocol: an id (an
// incoming x-request-id is kept), the client's address, a signal aborted
// when the client goes away, the context values the interceptors share; and
// one report when it is done, of which the access log line (below) is the
// first reader. REST, Connect and both gRPC paths open their requests here.

type RawRequest = http.IncomingMessage | http2.Http2ServerRequest;
type RawResponse = http.ServerResponse | http2.Http2ServerResponse;

const MAX_REQUEST_ID_LENGTH = 128;
/** Visible ASCII only: the id is logged and may be echoed by proxies. */
const REQUEST_ID = /^[\x21-\x7e]+$/;
/** The status an access log gives a request its client abandoned (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Where a request keeps its scope: a property of the request itself. A WeakMap keyed by requests would keep each
 * one's scope alive through young collections (V8 holds a WeakMap's entries until a full collection), so every
 * request's scope would be promoted to the old generation.
 */
const scopeOfRequest = Symbol("requestScope");
type ScopedRequest = RawRequest & { [scopeOfRequest]?: RequestScope };

/** The scope openRequest gave this request. */
export function scopeOf(req: RawRequest): RequestScope {
  const scope = (req as ScopedRequest)[scopeOfRequest];
  if (scope === undefined) throw new Error("request not opened");
  return scope;
}

/** The client's x-request-id when it is a sensible one; a fresh UUID otherwise. */
export function requestIdOf(header: string | string[] | undefined): string {
  const id = Array.isArray(header) ? header[0] : header;
  return id !== undefined && id.length <= MAX_REQUEST_ID_LENGTH && REQUEST_ID.test(id) ? id : randomUUID();
}

/**
 * Opens a request: its scope lives until the response closes, and then the
 * request is reported to the observers, exactly once.
 */
export function openRequest(
  observers: RequestObservers,
  req: RawRequest,
  res: RawResponse,
  init: { readonly requestId: string; readonly peer: string; readonly scheme: string },
): RequestScope {
  const began = performance.now();
  const abort = new AbortController();
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  const values = createContextValues().set(peerAddressKey, init.peer);
  const scope: RequestScope = {
    requestId: init.requestId,
    receivedAt: Date.now(),
    protocol: protocolOf(req.headers["content-type"], "http"),
    httpMethod: req.method ?? "GET",
    scheme: init.scheme,
    path: query < 0 ? url : url.slice(0, query),
    peer: init.peer,
    signal: abort.signal,
    values,
  };
  values.set(requestScopeKey, scope);
  (req as ScopedRequest)[scopeOfRequest] = scope;
  (res as http.ServerResponse).once("close", () => {
    const answered = res.writableEnded;
    if (!answered) abort.abort(new ConnectError("the client went away", Code.Canceled));
    const principal = values.get(principalKey);
    observers.notify({
      requestId: scope.requestId,
      protocol: scope.protocol,
      httpMethod: scope.httpMethod,
      path: scope.path,
      service: scope.service,
      method: scope.method,
      route: scope.route,
      httpStatus: answered ? res.statusCode : CLIENT_CLOSED_REQUEST,
      code: answered ? scope.code : codeNameOf(Code.Canceled),
      noContext: scope.noContext,
      durationMs: performance.now() - began,
      keyId: principal?.keyId,
      tier: principal?.tier,
      peer: scope.peer,
    });
  });
  return scope;
}

/**
 * The outermost interceptor: notes the outcome of every call that reaches
 * the chain, as the code its client receives.
 */
export function recordOutcome(): Interceptor {
  return (next) => async (req) => {
    const scope = req.contextValues.get(requestScopeKey);
    try {
      const response = await next(req);
      if (scope !== undefined) enterMethod(scope, { code: 0 });
      return response;
    } catch (error) {
      if (scope !== undefined) enterMethod(scope, { code: ConnectError.from(error).code });
      throw error;
    }
  };
}

/**
 * Paths whose last segment is a one-time secret, logged without it: an invitation, an address confirmation and a
 * password reset link's token (whoever reads the log could otherwise spend the link before its owner does).
 */
const SECRET_SEGMENT_PREFIXES = ["/dashboard/invite/", "/dashboard/verify/", "/dashboard/reset-password/"];

function loggablePath(path: string): string {
  const prefix = SECRET_SEGMENT_PREFIXES.find((candidate) => path.startsWith(candidate));
  return prefix === undefined ? path : `${prefix}:token`;
}

/**
 * One line per request, with its id: protocol, route or RPC, status, the
 * Connect/gRPC code, duration and key id. Never a header value, a query
 * string or a body: a client may put a secret in any of them.
 */
export function accessLog(log: FastifyBaseLogger): RequestObserver {
  return (record) => {
    log.info(
      {
        reqId: record.requestId,
        protocol: record.protocol,
        method: record.httpMethod,
        url: loggablePath(record.path),
        rpc: record.method === undefined ? undefined : `${record.service}/${record.method}`,
        route: record.route,
        status: record.httpStatus,
        code: record.code,
        noContext: record.noContext,
        ms: Math.round(record.durationMs * 10) / 10,
        keyId: record.keyId,
        peer: record.peer,
      },
      "request",
    );
  };
}
