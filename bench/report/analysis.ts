import { isOverloaded } from "../load/loop-result.ts";
import { DISTURBED_ABOVE_PERCENT, otherCpuPercent } from "../phases/resources.ts";
import type { Analysis, BenchResults, PhaseKey, PhaseResult, Ratio, ScaleRow } from "./results.ts";

// Figures derived from the phases: the service against its two ceilings, the
// latency at the larger population against the smaller, and memory.

/** The two protocols the targets compare, with their closed- and open-loop phases. */
export const PROTOCOLS = [
  { via: "REST", closed: "closed.rest", open: "open.rest" },
  { via: "gRPC", closed: "closed.grpc", open: "open.grpc" },
] as const;

const SERVICE_PHASES: readonly PhaseKey[] = [
  "open.rest",
  "open.rest-new",
  "open.grpc",
  "closed.rest",
  "closed.rest-new",
  "closed.grpc",
  "scaled.rest",
  "scaled.grpc",
  "soak",
  "burst.rest",
  "burst.rest-new",
  "burst.grpc",
];

/** The phase of that key (at that load point, when given). */
export function phaseOf(results: Pick<BenchResults, "phases">, key: PhaseKey, point?: string): PhaseResult | undefined {
  return results.phases.find((phase) => phase.key === key && (point === undefined || phase.point === point));
}

export function analyze(results: BenchResults): Analysis {
  const phase = (key: PhaseKey, point?: string) => phaseOf(results, key, point);
  const db = phase("ceiling.db")?.loop;
  const http = phase("ceiling.http")?.loop;
  const ceilingRatios: Ratio[] = [];
  for (const key of ["closed.rest", "closed.grpc"] as const) {
    const loop = phase(key)?.loop;
    if (loop === undefined) continue;
    const via = phase(key)!.via;
    if (db && db.callsPerSecond > 0) {
      const value = (loop.callsPerSecond / db.callsPerSecond) * 100;
      ceilingRatios.push({ value, text: `${via} closed-loop calls/s = ${value.toFixed(0)} % of the DB ceiling` });
    }
    if (http && http.requestsPerSecond > 0) {
      const value = (loop.requestsPerSecond / http.requestsPerSecond) * 100;
      ceilingRatios.push({ value, text: `${via} requests/s = ${value.toFixed(0)} % of the HTTP ceiling` });
    }
  }

  const rows: ScaleRow[] = [];
  for (const [before, after] of [
    ["open.rest", "scaled.rest"],
    ["open.grpc", "scaled.grpc"],
  ] as const) {
    // The larger population is run at the fixed rate only.
    const small = phase(before, "fixed");
    const large = phase(after);
    if (small === undefined || large === undefined) continue;
    for (const operation of ["start", "end"] as const) {
      const p99Before = small.loop[operation].latency.p99Ms;
      const p99After = large.loop[operation].latency.p99Ms;
      const overloaded = isOverloaded(small.loop) || isOverloaded(large.loop);
      rows.push({ via: small.via, operation, p99Before, p99After, ratio: p99After / p99Before, overloaded });
    }
  }
  const scaled = phase("scaled.rest") ?? phase("scaled.grpc");
  const base = phase("open.rest", "fixed") ?? phase("open.grpc", "fixed");

  const rss = SERVICE_PHASES.map((key) => phase(key)?.resources.serverRssMaxMb).filter((mb) => mb !== undefined);
  const soak = phase("soak");
  const soakStart = soak?.resources.serverRssStartMb;
  const soakEnd = soak?.resources.serverRssEndMb;
  const disturbedPhases = results.phases
    .filter((p) => otherCpuPercent(p.resources, results.machine.cpuCount) > DISTURBED_ABOVE_PERCENT)
    .map((p) => `${p.title} over ${p.via} (${p.customers ?? "-"} customers)`);
  return {
    ceilingRatios,
    disturbedPhases,
    scale: scaled && base ? { from: base.customers ?? 0, to: scaled.customers ?? 0, rows } : undefined,
    memory: {
      maxRssMb: rss.length > 0 ? Math.max(...rss) : undefined,
      soak:
        soak && soakStart !== undefined && soakEnd !== undefined
          ? {
              seconds: soak.loop.durationSeconds,
              startMb: soakStart,
              endMb: soakEnd,
              growthPercent: ((soakEnd - soakStart) / soakStart) * 100,
            }
          : undefined,
    },
  };
}
