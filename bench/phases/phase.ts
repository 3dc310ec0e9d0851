import type { LoopResult } from "../load/loop-result.ts";
import type { ResourceMonitor, ResourceUsage } from "./resources.ts";

// One measured phase: which load, over what, on how many callers, and what
// it cost the machine.

export type PhaseKey =
  | "ceiling.db"
  | "ceiling.http"
  | "floor.db"
  | "floor.http"
  | "open.rest"
  | "open.grpc"
  | "closed.rest"
  | "closed.grpc"
  | "scaled.rest"
  | "scaled.grpc"
  | "soak"
  | "burst.rest"
  | "burst.grpc";

export interface PhaseResult {
  readonly key: PhaseKey;
  readonly title: string;
  /** Open loops at a load point: "50 %" or "80 %" of the closed-loop calls/s, "fixed" (--rate); floors add the protocol. */
  readonly point?: string;
  /** REST, gRPC, store (no HTTP), bare HTTP, or REST+gRPC. */
  readonly via: string;
  /** Seeded callers; undefined for the bare HTTP server. */
  readonly customers: number | undefined;
  readonly loop: LoopResult;
  readonly resources: ResourceUsage;
}

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
