import type { PhaseResult } from "./results.ts";

// CPU per completed call, per party: a load-independent figure (unlike
// latency on a shared two-core machine) that says where a call's work goes.

export interface CpuPerCall {
  /** ms of CPU per completed call; undefined when the party was not measured. */
  readonly serverMs: number | undefined;
  readonly postgresMs: number | undefined;
  readonly clientMs: number;
  readonly totalMs: number;
}

/**
 * A phase's CPU (% of one core, averaged over the phase) over its completed
 * calls per second: (percent / 100) × 1000 ms / (calls/s).
 */
export function cpuPerCall(phase: Pick<PhaseResult, "loop" | "resources">): CpuPerCall | undefined {
  const rate = phase.loop.callsPerSecond;
  if (!(rate > 0)) return undefined;
  const per = (percent: number | undefined) => (percent === undefined ? undefined : (percent * 10) / rate);
  const serverMs = per(phase.resources.serverCpuPercent);
  const postgresMs = per(phase.resources.postgresCpuPercent);
  const clientMs = per(phase.resources.clientCpuPercent) ?? 0;
  return { serverMs, postgresMs, clientMs, totalMs: (serverMs ?? 0) + (postgresMs ?? 0) + clientMs };
}
