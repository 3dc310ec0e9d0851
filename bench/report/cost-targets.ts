import { isOverloaded } from "../load/loop-result.ts";
import { FLOOR_POINT } from "../phases/load-points.ts";
import { PROTOCOLS, phaseOf } from "./analysis.ts";
import { cpuPerCall } from "./cpu-per-call.ts";
import type { PostgresReference } from "./postgres-reference.ts";
import type { BenchResults, PhaseKey, TargetCheck } from "./results.ts";

// What a call costs, against what it cost when it was first measured from
// outside (2026-11-24, PostgreSQL 15 on this two-core machine, the REST closed
// loop at 16 in flight): about 17 TPC-B transactions' worth of the machine,
// 5 ms of PostgreSQL CPU and 3 ms of the service's CPU per call. The goal is a
// call worth at most about 7 TPC-B transactions, each CPU halved.

/** Closed-loop calls/s as a share of pgbench's TPC-B transactions/s on the same server. */
export const CLOSED_LOOP_OVER_PGBENCH = 0.15;
/** ms of CPU per call in the closed loop when first measured; the targets are half of each. */
export const FIRST_MEASURED_CPU_MS = { postgres: 5, server: 3 } as const;
/** How far the start p99 at half of C may be from the floor (bare HTTP's p99 plus the store path's). */
export const FLOOR_FACTOR = 2;
/** The embedded database's closed loop as a share of PostgreSQL's on the same machine. */
export const EMBEDDED_OVER_POSTGRES = 0.5;

/** `postgres`: for an embedded run, the newest PostgreSQL run on this machine (postgres-reference.ts). */
export function costTargets(results: BenchResults, postgres?: PostgresReference): TargetCheck[] {
  const phase = (key: PhaseKey, point?: string) => phaseOf(results, key, point);
  const checks: TargetCheck[] = [];
  const pgbench = results.pgbench;
  for (const { via, closed, open } of PROTOCOLS) {
    const loop = phase(closed);
    const target = `${via} closed-loop calls/s ≥ ${CLOSED_LOOP_OVER_PGBENCH} × pgbench TPC-B tps`;
    if ("skipped" in pgbench || loop === undefined) {
      const embedded = results.machine.database.kind === "pglite";
      checks.push({ target, measured: "not measured", met: undefined, notApplicable: embedded });
    } else {
      const ratio = loop.loop.callsPerSecond / pgbench.tps;
      checks.push({
        target,
        measured: `${ratio.toFixed(3)} × (${loop.loop.callsPerSecond.toFixed(1)} calls/s vs ${pgbench.tps.toFixed(0)} tps)`,
        met: ratio >= CLOSED_LOOP_OVER_PGBENCH,
      });
    }
    const cpu = loop === undefined ? undefined : cpuPerCall(loop);
    checks.push(
      halfOf(`${via} closed loop: PostgreSQL CPU per call`, cpu?.postgresMs, FIRST_MEASURED_CPU_MS.postgres),
      halfOf(`${via} closed loop: service CPU per call`, cpu?.serverMs, FIRST_MEASURED_CPU_MS.server),
    );
    checks.push(floorCheck(results, via, open));
    checks.push(embeddedCheck(results, via, loop?.loop.callsPerSecond, postgres));
  }
  return checks;
}

function embeddedCheck(
  results: BenchResults,
  via: "REST" | "gRPC",
  embedded: number | undefined,
  postgres: PostgresReference | undefined,
): TargetCheck {
  const target = `embedded: ${via} closed-loop calls/s ≥ ${EMBEDDED_OVER_POSTGRES} × PostgreSQL's on this machine`;
  if (results.machine.database.kind !== "pglite") {
    return { target, measured: "PostgreSQL run", met: undefined, notApplicable: true };
  }
  const reference = via === "REST" ? postgres?.restCallsPerSecond : postgres?.grpcCallsPerSecond;
  if (embedded === undefined || postgres === undefined || reference === undefined || !(reference > 0)) {
    return { target, measured: "not measured (no PostgreSQL run on this machine in bench/results/)", met: undefined };
  }
  return {
    target,
    measured: `${(embedded / reference).toFixed(2)} × (${embedded.toFixed(1)} calls/s vs ${reference.toFixed(1)} in ${postgres.file})`,
    met: embedded >= EMBEDDED_OVER_POSTGRES * reference,
  };
}

function halfOf(what: string, ms: number | undefined, firstMeasured: number): TargetCheck {
  const target = `${what} ≤ ${firstMeasured / 2} ms (half of ${firstMeasured})`;
  if (ms === undefined) return { target, measured: "not measured", met: undefined };
  return { target, measured: `${ms.toFixed(2)} ms`, met: ms <= firstMeasured / 2 };
}

function floorCheck(results: BenchResults, via: "REST" | "gRPC", open: PhaseKey): TargetCheck {
  const target = `${via} start p99 at ${FLOOR_POINT} of capacity ≤ ${FLOOR_FACTOR} × (bare-HTTP p99 + DB-only p99)`;
  const service = phaseOf(results, open, FLOOR_POINT)?.loop;
  const db = phaseOf(results, "floor.db", `${FLOOR_POINT} ${via}`)?.loop;
  const http = phaseOf(results, "floor.http", `${FLOOR_POINT} ${via}`)?.loop;
  if (service === undefined || db === undefined || http === undefined) {
    return { target, measured: "not measured", met: undefined };
  }
  const floor = http.start.latency.p99Ms + db.start.latency.p99Ms;
  const measured = `${service.start.latency.p99Ms.toFixed(2)} ms vs ${FLOOR_FACTOR} × ${floor.toFixed(2)} ms`;
  // A floor that fell behind its own timetable measured the machine's queue, not a floor.
  if (isOverloaded(db) || isOverloaded(http)) {
    return { target, measured: `${measured}; floor overloaded, not comparable`, met: undefined, notApplicable: true };
  }
  return { target, measured, met: service.start.latency.p99Ms <= FLOOR_FACTOR * floor };
}
