import type { Counter, Gauge, Histogram, Registry } from "prom-client";

// The service's Prometheus metrics as the request's path records them; src/metrics/metrics.ts builds them.
// No label ever carries a key, a customer or a call id.

export interface Metrics {
  readonly registry: Registry;
  /** Every HTTP request (REST, Connect, gRPC, the dashboard), by method, route template and status. */
  readonly httpDuration: Histogram<HttpLabel>;
  /** Every Connect and gRPC call, by system, service, method and status (REST calls are HTTP requests). */
  readonly rpcDuration: Histogram<RpcLabel | RpcStatusLabel>;
  readonly rpcActive: Gauge<RpcLabel>;
  /** Requests refused by the rate limit, the quota or the failed-authentication limit, by the key's tier. */
  readonly refusals: Counter<"reason" | "tier">;
  readonly recommendations: Counter<"recommendation">;
  readonly budgetExpiries: Counter<"method">;
  /** Inbound platform webhooks answered 2xx without context, by platform and why. */
  readonly webhookNoContext: Counter<"platform" | "reason">;
  /** Stops what samples on a timer (the event-loop delay). */
  stop(): void;
}

// Label names are the attributes of OpenTelemetry's semantic conventions as its
// Prometheus exporter writes them (dots become underscores).
export type HttpLabel = "http_request_method" | "http_route" | "http_response_status_code";

export type RpcLabel = "rpc_system" | "rpc_service" | "rpc_method";

export type RpcStatusLabel = "rpc_grpc_status_code" | "rpc_connect_rpc_error_code";
