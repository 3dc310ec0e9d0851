import type { Metrics } from "../pipeline/metrics-registry.ts";
import type { Protocol, RequestObserver } from "../pipeline/request-scope.ts";
import { grpcStatusOf } from "../pipeline/request-scope.ts";

// Every request, whatever its protocol, as the request pipeline reports it
// once it is done: its HTTP duration by route, and for Connect and gRPC calls
// the RPC duration by system, service, method and status.

export function metricsObserver(metrics: Metrics): RequestObserver {
  return (record) => {
    const seconds = record.durationMs / 1000;
    metrics.httpDuration.observe(
      {
        http_request_method: record.httpMethod,
        // A template or a method name, never the raw path (it may carry ids, and would not stay bounded).
        http_route: record.route ?? (record.method ? `/${record.service}/${record.method}` : "other"),
        http_response_status_code: String(record.httpStatus),
      },
      seconds,
    );
    const system = rpcSystemOf(record.protocol);
    if (system !== undefined && record.method !== undefined && record.service !== undefined) {
      const code = record.code ?? "unknown";
      metrics.rpcDuration.observe(
        {
          rpc_system: system,
          rpc_service: record.service,
          rpc_method: record.method,
          ...(system === "grpc"
            ? { rpc_grpc_status_code: String(grpcStatusOf(code)) }
            : { rpc_connect_rpc_error_code: code === "ok" ? "" : code }),
        },
        seconds,
      );
    }
  };
}

/** OpenTelemetry's rpc.system for a protocol; undefined for REST and plain HTTP, which are not RPC. */
export function rpcSystemOf(protocol: Protocol): "grpc" | "connect_rpc" | undefined {
  if (protocol === "grpc" || protocol === "grpc-web") return "grpc";
  return protocol === "connect" ? "connect_rpc" : undefined;
}
