import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FallbackRateLimiter } from "../domain/rate-limiter.ts";
import type { AdmissionControl } from "../pipeline/admission-control.ts";
import type { Metrics } from "../pipeline/metrics-registry.ts";
import type { Database } from "../store/database.ts";
import { registerAdmissionMetrics } from "./admission-metrics.ts";
import { registerRateLimitMetrics } from "./rate-limit-metrics.ts";
import { registerRuntimeMetrics } from "./runtime-metrics.ts";

// The service's Prometheus metrics, in a registry of its own (one per running
// server). Names follow OpenTelemetry's semantic conventions where they have
// one. No label ever carries a key, a customer or a call id.

// Latency buckets around a start's one-second budget.
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(
  database: Pick<Database, "poolStats" | "blocksTouched">,
  admission?: Pick<AdmissionControl, "stats">,
  rateLimiter?: Pick<FallbackRateLimiter, "state">,
): Metrics {
  const registry = new Registry();
  const stopRuntimeMetrics = registerRuntimeMetrics(registry);
  if (admission !== undefined) registerAdmissionMetrics(registry, admission);
  if (rateLimiter !== undefined) registerRateLimitMetrics(registry, rateLimiter);
  const registers = [registry];
  const pool = () => database.poolStats();
  new Gauge({
    // OpenTelemetry's db.client.connection.count, less "_count": Prometheus keeps that suffix for histograms and
    // summaries, and promtool refuses it on a gauge.
    name: "db_client_connections",
    help: "Database connections by state (idle, used)",
    labelNames: ["db_client_connection_state"],
    registers,
    collect() {
      const stats = pool();
      if (stats === undefined) return;
      this.set({ db_client_connection_state: "idle" }, stats.idle);
      this.set({ db_client_connection_state: "used" }, stats.total - stats.idle);
    },
  });
  new Gauge({
    name: "db_client_connection_pending_requests",
    help: "Requests waiting for a database connection",
    registers,
    collect() {
      const stats = pool();
      if (stats !== undefined) this.set(stats.waiting);
    },
  });
  new Counter({
    name: "db_blocks_touched_total",
    help: "Blocks of the service's database read or found in shared buffers, by every session (pg_stat_database)",
    registers,
    async collect() {
      // The database keeps the count; a scrape copies it. One that fails leaves the last one read.
      const blocks = await database.blocksTouched().catch(() => undefined);
      if (blocks === undefined) return;
      this.reset();
      this.inc(blocks);
    },
  });
  return {
    registry,
    stop: stopRuntimeMetrics,
    httpDuration: new Histogram({
      name: "http_server_request_duration_seconds",
      help: "Duration of HTTP server requests",
      labelNames: ["http_request_method", "http_route", "http_response_status_code"],
      buckets: SECONDS,
      registers,
    }),
    rpcDuration: new Histogram({
      name: "rpc_server_call_duration_seconds",
      help: "Duration of Connect and gRPC calls",
      labelNames: ["rpc_system", "rpc_service", "rpc_method", "rpc_grpc_status_code", "rpc_connect_rpc_error_code"],
      buckets: SECONDS,
      registers,
    }),
    rpcActive: new Gauge({
      name: "rpc_server_active_calls",
      help: "Connect and gRPC calls in flight",
      labelNames: ["rpc_system", "rpc_service", "rpc_method"],
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
