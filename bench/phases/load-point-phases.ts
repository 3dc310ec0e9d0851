import type { CallDriver } from "../load/call-driver.ts";
import type { ClientModel } from "../load/client-models.ts";
import type { Workload } from "../load/workload.ts";
import type { PhaseKey, PhaseResult } from "../report/results.ts";
import type { BenchDatabase } from "../service/bench-database.ts";
import type { Service } from "../service/service.ts";
import { measureDbFloor, measureHttpFloor } from "./floors.ts";
import { FLOOR_POINT, type LoadPoint, loadPoints } from "./load-points.ts";
import { openLoopPhase } from "./service-phases.ts";

// The service's open loops at load points relative to its own capacity (the
// closed-loop calls/s of the same run, per protocol), then the latency floors
// at each protocol's 50 % rate.

export interface ProtocolLoad {
  readonly via: string;
  readonly key: Extract<PhaseKey, "open.rest" | "open.rest-new" | "open.grpc">;
  readonly driver: () => CallDriver;
  readonly points: readonly LoadPoint[];
  /** Whether the latency floors are measured at its 50 % rate (REST's pool and gRPC: the targets' two). */
  readonly floors: boolean;
}

export interface LoadPointTiming {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  /** HTTP/1.1 connections of the REST client against the bare route. */
  readonly connections: number;
}

/** Each client model at the load points of its protocol's capacity. */
export function protocolLoads(
  phases: readonly PhaseResult[],
  models: readonly ClientModel[],
  fixedRate: number,
): ProtocolLoad[] {
  const capacity = (key: PhaseKey) => phases.find((phase) => phase.key === key)?.loop.callsPerSecond;
  return models.map((model) => ({
    via: model.via,
    key: model.openKey,
    driver: () => model.driver(),
    points: loadPoints(capacity(model.capacityFrom), fixedRate),
    floors: model.floors,
  }));
}

/** At each load point in turn, every client model. */
export async function openLoopsAtLoadPoints(
  service: Service,
  workload: Workload,
  protocols: readonly ProtocolLoad[],
  timing: LoadPointTiming,
): Promise<PhaseResult[]> {
  const phases: PhaseResult[] = [];
  const rounds = Math.max(...protocols.map((protocol) => protocol.points.length));
  for (let at = 0; at < rounds; at++) {
    for (const protocol of protocols) {
      const load = protocol.points[at];
      if (load === undefined) continue;
      phases.push(
        await openLoopPhase(
          service,
          workload,
          { key: protocol.key, point: load.point, title: openTitle(load), driver: protocol.driver() },
          { callsPerSecond: load.callsPerSecond, durationSeconds: timing.durationSeconds },
          timing.warmupSeconds,
        ),
      );
    }
  }
  return phases;
}

/** The DB-only and bare-HTTP open loops at each protocol's 50 % rate (PGlite: with the server stopped). */
export async function floorsAtLoadPoint(
  database: BenchDatabase,
  workload: Workload,
  protocols: readonly ProtocolLoad[],
  timing: LoadPointTiming,
): Promise<PhaseResult[]> {
  const phases: PhaseResult[] = [];
  for (const protocol of protocols.filter((p) => p.floors)) {
    const load = protocol.points.find((p) => p.point === FLOOR_POINT);
    if (load === undefined) continue;
    const floor = {
      callsPerSecond: load.callsPerSecond,
      durationSeconds: timing.durationSeconds,
      warmupSeconds: timing.warmupSeconds,
      point: `${FLOOR_POINT} ${protocol.via}`,
    };
    phases.push(await measureDbFloor(database, workload, floor));
    phases.push(await measureHttpFloor(workload, floor, timing.connections));
  }
  return phases;
}

export function openTitle(load: LoadPoint): string {
  return load.point === "fixed"
    ? `open loop, ${load.callsPerSecond} calls/s`
    : `open loop, ${load.point} of capacity (${load.callsPerSecond.toFixed(0)} calls/s)`;
}
