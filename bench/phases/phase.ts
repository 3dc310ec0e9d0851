import type { LoopResult } from "../load/loop-result.ts";
import type { PhaseResult } from "../report/results.ts";
import type { ResourceMonitor } from "./resources.ts";

// One measured phase: which load, over what, on how many callers, and what
// it cost the machine.

export async function measurePhase(
  monitor: ResourceMonitor,
  describe: Omit<PhaseResult, "loop" | "resources">,
  run: () => Promise<LoopResult>,
): Promise<PhaseResult> {
  progress(`${describe.title} over ${describe.via}`);
  const finish = monitor.begin();
  const loop = await run();
  const resources = finish();
  const errors = loop.start.errors + loop.end.errors;
  progress(
    `  ${loop.callsPerSecond.toFixed(1)} calls/s, start p99 ${loop.start.latency.p99Ms.toFixed(2)} ms, ` +
      `end p99 ${loop.end.latency.p99Ms.toFixed(2)} ms, ${errors} errors`,
  );
  return { ...describe, loop, resources };
}

/** Progress goes to standard error; standard output carries the report. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}
