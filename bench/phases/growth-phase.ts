import { type CallDriver, failureLabel } from "../load/call-driver.ts";
import type { Workload } from "../load/workload.ts";
import type { GrowthRecord } from "../report/results.ts";
import { progress } from "./phase.ts";

// Before the measured phases, new callers call the service for real, so part
// of the population was written by the service's own statements (customers,
// identifiers, dialled numbers, intents, variables, calls) and not by the
// bulk SQL seed. Not timed as a phase; it reports how many customers it added.

export async function growPopulation(
  driver: CallDriver,
  workload: Workload,
  options: { calls: number; concurrency: number },
): Promise<GrowthRecord> {
  const began = performance.now();
  const refs = new Set<string>();
  const errors: Record<string, number> = {};
  const fail = (error: unknown) => {
    const label = failureLabel(error);
    errors[label] = (errors[label] ?? 0) + 1;
  };
  let issued = 0;
  const worker = async () => {
    while (issued < options.calls) {
      issued++;
      const call = workload.nextGrowth();
      try {
        const ref = await driver.start(call);
        refs.add(ref);
        await driver.end(call, ref);
      } catch (error) {
        fail(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, options.calls) }, worker));
  } finally {
    await driver.close();
  }
  const seconds = (performance.now() - began) / 1000;
  progress(
    `growth: ${refs.size} customers added by ${issued} real calls over ${driver.name} in ${seconds.toFixed(1)} s`,
  );
  return { calls: issued, customersAdded: refs.size, errors, seconds, via: driver.name };
}
