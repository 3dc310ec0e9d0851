import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { AttemptOutcome } from "../events/delivery-worker.ts";
import type { Db } from "../store/database.ts";
import { outboxStats } from "../store/event-delivery-repository.ts";

// Event delivery as Prometheus sees it: attempts by outcome, their latency,
// endpoints disabled, and the outbox (pending deliveries, age of the oldest),
// read from the database at scrape time, so every instance reports the shared outbox.

export interface EventMetrics {
  attempted(outcome: AttemptOutcome, latencyMs: number): void;
  endpointDisabled(): void;
}

export function registerEventMetrics(registry: Registry, db: Db, now: () => Date): EventMetrics {
  const registers = [registry];
  const attempts = new Counter({
    name: "event_delivery_attempts_total",
    help: "Event delivery attempts by outcome: delivered, retrying (failed, tried again later), failed (given up)",
    labelNames: ["outcome"],
    registers,
  });
  const duration = new Histogram({
    name: "event_delivery_duration_seconds",
    help: "Duration of event delivery attempts",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const disabled = new Counter({
    name: "event_endpoints_disabled_total",
    help: "Endpoints disabled after a run of failed deliveries",
    registers,
  });
  let stats: Promise<{ pending: number; oldest: Date | null }> | undefined;
  // One query per scrape for both gauges.
  const read = () => {
    stats ??= outboxStats(db).finally(() => setImmediate(() => (stats = undefined)));
    return stats;
  };
  new Gauge({
    name: "event_outbox_pending",
    help: "Event deliveries waiting in the outbox",
    registers,
    async collect() {
      this.set((await read()).pending);
    },
  });
  new Gauge({
    name: "event_outbox_oldest_age_seconds",
    help: "Age of the oldest pending event delivery (0 when the outbox is empty)",
    registers,
    async collect() {
      const { oldest } = await read();
      this.set(oldest === null ? 0 : Math.max(0, (now().getTime() - oldest.getTime()) / 1000));
    },
  });
  return {
    attempted(outcome, latencyMs) {
      attempts.inc({ outcome });
      duration.observe(latencyMs / 1000);
    },
    endpointDisabled() {
      disabled.inc();
    },
  };
}
