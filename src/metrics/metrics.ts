import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AdmissionControl } from "../guards/admission.ts";
import type { Database } from "../store/engine/database.ts";
import { registerAdmissionMetrics } from "./admission-metrics.ts";
import { registerRuntimeMetrics } from "./runtime-metrics.ts";

// The service's Prometheus metrics, in a registry of its own (one per running
// server). Names follow OpenTelemetry's semantic conventions where they have
// one. No label ever carries a key, a customer or a call id.

export interface Metrics {
  readonly registry: Registry;
  /** By method, route template and status. */
  readonly httpDuration: Histogram<"method" | "route" | "status">;
  /** Every API call over REST, Connect and gRPC, by service, method and Connect code. */
  readonly rpcDuration: Histogram<"service" | "method" | "code">;
  readonly rpcActive: Gauge<"service" | "method">;
  /** Requests refused by the rate limit, the quota or the failed-authentication limit, by the key's tier. */
  readonly refusals: Counter<"reason" | "tier">;
  readonly recommendations: Counter<"recommendation">;
  readonly budgetExpiries: Counter<"method">;
  /** Inbound platform webhooks answered 2xx without context, by platform and why. */
  readonly webhookNoContext: Counter<"platform" | "reason">;
}

// Latency buckets around a start's one-second budget.
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(
  database: Pick<Database, "poolStats">,
  admission?: Pick<AdmissionControl, "stats">,
): Metrics {
  const registry = new Registry();
  registerRuntimeMetrics(registry);
  if (admission !== undefined) registerAdmissionMetrics(registry, admission);
  const registers = [registry];
  const pool = () => database.poolStats();
  new Gauge({
    name: "db_client_connections_usage",
    help: "Database connections by state (idle, used)",
    labelNames: ["state"],
    registers,
    collect() {
      const stats = pool();
      if (stats === undefined) return;
      this.set({ state: "idle" }, stats.idle);
      this.set({ state: "used" }, stats.total - stats.idle);
    },
  });
  new Gauge({
    name: "db_client_connections_pending_requests",
    help: "Requests waiting for a database connection",
    registers,
    collect() {
      const stats = pool();
      if (stats !== undefined) this.set(stats.waiting);
    },
  });
  return {
    registry,
    httpDuration: new Histogram({
      name: "http_server_request_duration_seconds",
      help: "Duration of HTTP server requests",
      labelNames: ["method", "route", "status"],
      buckets: SECONDS,
      registers,
    }),
    rpcDuration: new Histogram({
      name: "rpc_server_call_duration_seconds",
      help: "Duration of API calls, over every protocol",
      labelNames: ["service", "method", "code"],
      buckets: SECONDS,
      registers,
    }),
    rpcActive: new Gauge({
      name: "rpc_server_active_calls",
      help: "API calls in flight",
      labelNames: ["service", "method"],
      registers,
    }),
    refusals: new Counter({
      name: "api_refusals_total",
      help: "Calls refused by a limit: rate_limit, quota or auth_failures (tier none)",
      labelNames: ["reason", "tier"],
      registers,
    }),
    recommendations: new Counter({
      name: "identity_recommendations_total",
      help: "Starts by the identity recommendation they answered",
      labelNames: ["recommendation"],
      registers,
    }),
    budgetExpiries: new Counter({
      name: "time_budget_expiries_total",
      help: "Calls answered 503 because their time budget ran out",
      labelNames: ["method"],
      registers,
    }),
    webhookNoContext: new Counter({
      name: "webhook_no_context_answers_total",
      help: "Inbound platform webhooks answered without context so the call goes ahead: quota_exhausted, rate_limited, overloaded, timeout or error",
      labelNames: ["platform", "reason"],
      registers,
    }),
  };
}

/** Counts an inbound webhook answered without context, when metrics are on. */
export function countNoContext(
  metrics: Metrics | undefined,
): (integration: { platform: string }, reason: string) => void {
  return (integration, reason) => metrics?.webhookNoContext.inc({ platform: integration.platform, reason });
}
