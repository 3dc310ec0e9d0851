import { Counter, Gauge, type Registry } from "prom-client";
import type { FallbackRateLimiter } from "../domain/rate-limiter.ts";

// Where the rate-limit windows live now (registered only with REDIS_URL): in Redis, shared by every instance, or in
// this instance while Redis does not answer (docs/operations.md, "Redis").

export function registerRateLimitMetrics(registry: Registry, limiter: Pick<FallbackRateLimiter, "state">): void {
  const registers = [registry];
  new Gauge({
    name: "rate_limit_windows_shared",
    help: "1 while the rate-limit windows are Redis's, shared by every instance; 0 while they are this instance's own",
    registers,
    collect() {
      this.set(limiter.state().shared ? 1 : 0);
    },
  });
  new Counter({
    name: "rate_limit_redis_outages_total",
    help: "Times Redis stopped answering and the rate limit turned to this instance's windows",
    registers,
    collect() {
      this.reset();
      this.inc(limiter.state().outages);
    },
  });
}
