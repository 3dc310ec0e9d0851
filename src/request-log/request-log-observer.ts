import type { Clock } from "../domain/clock.ts";
import type { RequestLog } from "../pipeline/request-log-sink.ts";
import type { RequestObserver, RequestRecord } from "../pipeline/request-scope.ts";
import { grpcStatusOf } from "../pipeline/request-scope.ts";

// Which finished requests the Requests page keeps, and in what words: the
// API requests an account's key made, over any protocol. The dashboard's own
// pages, the admin API and requests no key authenticated are not an
// account's API traffic (an unrecognised key names no account to show it to).

const API_PROTOCOLS = new Set(["rest", "connect", "grpc", "grpc-web"]);

export function requestLogObserver(log: RequestLog, clock: Clock): RequestObserver {
  return (record) => {
    if (record.keyId === undefined || !API_PROTOCOLS.has(record.protocol)) return;
    log.record({
      keyId: record.keyId,
      at: clock.now(),
      protocol: record.protocol,
      route: routeOf(record),
      status: statusOf(record),
      latencyMs: Math.round(record.durationMs * 10) / 10,
      requestId: record.requestId,
    });
  };
}

/** "POST /v1/calls/start" for REST, "callercontext.v1.CallerContextService/StartCall" for an RPC. */
function routeOf(record: RequestRecord): string {
  if (record.method !== undefined && record.protocol !== "rest") return `${record.service}/${record.method}`;
  if (record.route !== undefined) return `${record.httpMethod} ${record.route}`;
  // Never the raw path: it may carry a customer_ref, which an erasure must not leave behind.
  return `${record.httpMethod} (other)`;
}

/** gRPC answers 200 over HTTP whatever happened: its own status code says what did. */
function statusOf(record: RequestRecord): number {
  if (record.protocol !== "grpc" || record.code === undefined) return record.httpStatus;
  return grpcStatusOf(record.code);
}
