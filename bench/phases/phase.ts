import { setTimeout as sleep } from "node:timers/promises";
import type { LoopResult } from "../load/loop-result.ts";
import type { PhaseResult } from "../report/results.ts";
import type { ResourceMonitor } from "./resources.ts";

// One measured phase: which load, over what, on how many callers, and what
// it cost the machine: CPU and memory, and the database blocks it touched per
// call (counted, not timed, so stable on a busy machine).

/** Blocks the database has touched so far (hits and reads, every session): PostgreSQL's own count. */
export type BlockCounter = () => Promise<number>;

/** PostgreSQL's sessions report their counts within a second of going idle. */
const STATS_SETTLE_MS = 1500;

export async function measurePhase(
  monitor: ResourceMonitor,
  describe: Omit<PhaseResult, "loop" | "resources" | "blocksPerCall">,
  run: () => Promise<LoopResult>,
  blocks?: BlockCounter,
): Promise<PhaseResult> {
  progress(`${describe.title} over ${describe.via}`);
  const blocksBefore = blocks === undefined ? undefined : await settledCount(blocks);
  const finish = monitor.begin();
  const loop = await run();
  const resources = finish();
  // A phase that ended no call has no cost per call to show.
  const blocksPerCall =
    blocks === undefined || blocksBefore === undefined || loop.callsEnded === 0
      ? undefined
      : ((await settledCount(blocks)) - blocksBefore) / loop.callsEnded;
  const errors = loop.start.errors + loop.end.errors;
  progress(
    `  ${loop.callsPerSecond.toFixed(1)} calls/s, start p99 ${loop.start.latency.p99Ms.toFixed(2)} ms, ` +
      `end p99 ${loop.end.latency.p99Ms.toFixed(2)} ms, ${errors} errors` +
      (blocksPerCall === undefined ? "" : `, ${blocksPerCall.toFixed(0)} database blocks per call`),
  );
  return { ...describe, loop, resources, blocksPerCall };
}

async function settledCount(blocks: BlockCounter): Promise<number> {
  await sleep(STATS_SETTLE_MS);
  return blocks();
}

/** Progress goes to standard error; standard output carries the report. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}
