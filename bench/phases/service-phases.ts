import type { CallDriver } from "../load/call-driver.ts";
import { type ClosedLoopOptions, runClosedLoop } from "../load/closed-loop.ts";
import { type OpenLoopOptions, runOpenLoop } from "../load/open-loop.ts";
import { customersOf, type Workload } from "../load/workload.ts";
import type { PhaseKey, PhaseResult } from "../report/results.ts";
import { serviceBlocks } from "../service/block-counters.ts";
import type { Service } from "../service/service.ts";
import { measurePhase } from "./phase.ts";

// The service's phases. Each gets a driver of its own, closed afterwards.

/** An unmeasured warm-up at the same rate, then the measured run. */
export async function openLoopPhase(
  service: Service,
  workload: Workload,
  phase: { key: PhaseKey; title: string; driver: CallDriver; point?: string },
  load: OpenLoopOptions,
  warmupSeconds: number,
): Promise<PhaseResult> {
  const { driver } = phase;
  try {
    if (warmupSeconds > 0) await runOpenLoop(driver, workload, { ...load, durationSeconds: warmupSeconds });
    return await measurePhase(
      service.monitor,
      { key: phase.key, point: phase.point, title: phase.title, via: driver.name, customers: customersOf(workload) },
      () => runOpenLoop(driver, workload, load),
      serviceBlocks(service),
    );
  } finally {
    await driver.close();
  }
}

export async function closedLoopPhase(
  service: Service,
  workload: Workload,
  phase: { key: PhaseKey; driver: CallDriver },
  load: ClosedLoopOptions,
): Promise<PhaseResult> {
  const { driver } = phase;
  try {
    return await measurePhase(
      service.monitor,
      {
        key: phase.key,
        title: `closed loop, ${load.concurrency} in flight`,
        via: driver.name,
        customers: customersOf(workload),
      },
      () => runClosedLoop(driver, workload, load),
      serviceBlocks(service),
    );
  } finally {
    await driver.close();
  }
}
