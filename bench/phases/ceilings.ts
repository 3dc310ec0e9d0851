import { type ClosedLoopOptions, runClosedLoop } from "../load/closed-loop.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createStoreDriver } from "../load/store-load.ts";
import { customersOf, type Workload } from "../load/workload.ts";
import type { PhaseResult } from "../report/results.ts";
import { startBareServer } from "../service/bare-process.ts";
import type { BenchDatabase } from "../service/bench-database.ts";
import { databaseBlocks } from "../service/block-counters.ts";
import { measurePhase } from "./phase.ts";
import { createResourceMonitor } from "./resources.ts";

// The two physical limits the service is compared with, measured by the same
// closed loop at the same concurrency and duration as the service.

/**
 * The store functions in this process, on the benchmark database. With the
 * embedded database the server must not be running: PGlite has one holder.
 */
export async function measureDbCeiling(
  database: BenchDatabase,
  workload: Workload,
  loop: ClosedLoopOptions,
): Promise<PhaseResult> {
  const opened = await database.open();
  const monitor = createResourceMonitor(undefined, { postgres: database.kind === "postgres" });
  try {
    return await measurePhase(
      monitor,
      {
        key: "ceiling.db",
        title: `DB ceiling, ${loop.concurrency} in flight`,
        via: "store",
        customers: customersOf(workload),
      },
      () => runClosedLoop(createStoreDriver(opened, { accountId: workload.accountId }), workload, loop),
      databaseBlocks(opened),
    );
  } finally {
    monitor.close();
    await opened.close();
  }
}

/** A bare Fastify JSON route in a child process, driven by the REST client. */
export async function measureHttpCeiling(workload: Workload, loop: ClosedLoopOptions): Promise<PhaseResult> {
  const bare = await startBareServer();
  const monitor = createResourceMonitor(bare.pid);
  const driver = createRestDriver(bare.url, ["bare"], loop.concurrency);
  try {
    return await measurePhase(
      monitor,
      {
        key: "ceiling.http",
        title: `HTTP ceiling, ${loop.concurrency} in flight`,
        via: "bare HTTP",
        customers: undefined,
      },
      () => runClosedLoop(driver, workload, loop),
    );
  } finally {
    await driver.close();
    monitor.close();
    await bare.stop();
  }
}
