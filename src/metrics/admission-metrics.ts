import { Counter, Gauge, type Registry } from "prom-client";
import type { AdmissionControl, ShedReason } from "../pipeline/admission-control.ts";

// The admission control's state, read when Prometheus scrapes: the limit it
// has settled on, the calls in flight and queued, and the refusals by reason.

export function registerAdmissionMetrics(registry: Registry, admission: Pick<AdmissionControl, "stats">): void {
  const registers = [registry];
  new Gauge({
    name: "admission_limit",
    help: "Calls in flight the admission control lets in now",
    registers,
    collect() {
      this.set(admission.stats().limit);
    },
  });
  new Gauge({
    name: "admission_in_flight",
    help: "Calls admitted and not yet finished",
    registers,
    collect() {
      this.set(admission.stats().inFlight);
    },
  });
  new Gauge({
    name: "admission_queued",
    help: "Calls waiting for a place",
    registers,
    collect() {
      this.set(admission.stats().queued);
    },
  });
  new Counter({
    name: "admission_admitted_total",
    help: "Calls admitted",
    registers,
    collect() {
      this.reset();
      this.inc(admission.stats().admitted);
    },
  });
  new Counter({
    name: "admission_refusals_total",
    help: "Calls refused: limit, queue_forecast, pressure or deadline",
    labelNames: ["reason"],
    registers,
    collect() {
      this.reset();
      for (const [reason, count] of Object.entries(admission.stats().refused) as [ShedReason, number][]) {
        this.inc({ reason }, count);
      }
    },
  });
}
