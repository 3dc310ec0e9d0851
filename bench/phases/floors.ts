import type { CallDriver } from "../load/call-driver.ts";
import { runOpenLoop } from "../load/open-loop.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createStoreDriver } from "../load/store-load.ts";
import { customersOf, type Workload } from "../load/workload.ts";
import type { PhaseResult } from "../report/results.ts";
import { startBareServer } from "../service/bare-process.ts";
import type { BenchDatabase } from "../service/bench-database.ts";
import { databaseBlocks } from "../service/block-counters.ts";
import { type BlockCounter, measurePhase } from "./phase.ts";
import { createResourceMonitor, type ResourceMonitor } from "./resources.ts";

// The latency floors at a given offered rate: the call's statements alone
// (the store functions, no HTTP) and a bare HTTP route alone, each in an open
// loop at the rate of a service open loop. The service's start p99 at that
// rate is compared with the sum of the two.

export interface FloorLoad {
  readonly callsPerSecond: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  /** The load point the rate belongs to, e.g. "50 % REST". */
  readonly point: string;
}

/** With the embedded database the server must not be running: PGlite has one holder. */
export async function measureDbFloor(
  database: BenchDatabase,
  workload: Workload,
  load: FloorLoad,
): Promise<PhaseResult> {
  const opened = await database.open();
  const monitor = createResourceMonitor(undefined, { postgres: database.kind === "postgres" });
  try {
    return await openPhase(
      monitor,
      createStoreDriver(opened, { accountId: workload.accountId }),
      workload,
      load,
      "floor.db",
      "DB only",
      databaseBlocks(opened),
    );
  } finally {
    monitor.close();
    await opened.close();
  }
}

/** The bare Fastify route in a child process, driven by the REST client with 32 connections. */
export async function measureHttpFloor(workload: Workload, load: FloorLoad, connections: number): Promise<PhaseResult> {
  const bare = await startBareServer();
  const monitor = createResourceMonitor(bare.pid);
  try {
    return await openPhase(
      monitor,
      createRestDriver(bare.url, ["bare"], connections),
      workload,
      load,
      "floor.http",
      "bare HTTP",
    );
  } finally {
    monitor.close();
    await bare.stop();
  }
}

async function openPhase(
  monitor: ResourceMonitor,
  driver: CallDriver,
  workload: Workload,
  load: FloorLoad,
  key: "floor.db" | "floor.http",
  what: string,
  blocks?: BlockCounter,
): Promise<PhaseResult> {
  const rate = { callsPerSecond: load.callsPerSecond, durationSeconds: load.durationSeconds };
  try {
    if (load.warmupSeconds > 0) await runOpenLoop(driver, workload, { ...rate, durationSeconds: load.warmupSeconds });
    return await measurePhase(
      monitor,
      {
        key,
        point: load.point,
        title: `${what} open loop, ${load.point} (${load.callsPerSecond.toFixed(0)} calls/s)`,
        via: driver.name,
        customers: key === "floor.db" ? customersOf(workload) : undefined,
      },
      () => runOpenLoop(driver, workload, rate),
      blocks,
    );
  } finally {
    await driver.close();
  }
}
