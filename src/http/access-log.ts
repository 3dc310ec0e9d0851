import type { FastifyBaseLogger } from "fastify";
import type { RequestObserver } from "../pipeline/request-observers.ts";

/**
 * One line per request, with its id: protocol, route or RPC, status, the
 * Connect/gRPC code, duration and key id. Never a header value, a query
 * string or a body: a client may put a secret in any of them.
 */
/**
 * Paths whose last segment is a one-time secret, logged without it: an invitation, an address confirmation and a
 * password reset link's token (whoever reads the log could otherwise spend the link before its owner does).
 */
const SECRET_SEGMENT_PREFIXES = ["/dashboard/invite/", "/dashboard/verify/", "/dashboard/reset-password/"];

function loggablePath(path: string): string {
  const prefix = SECRET_SEGMENT_PREFIXES.find((candidate) => path.startsWith(candidate));
  return prefix === undefined ? path : `${prefix}:token`;
}

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
