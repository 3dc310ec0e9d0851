import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MachineDescription, PhaseResult } from "./results.ts";

// An embedded run's closed loop is judged against PostgreSQL's on the same
// machine. One run measures one database, so the reference is the newest full
// PostgreSQL run in bench/results/ whose machine is this one.

export interface PostgresReference {
  /** The results file it was read from. */
  readonly file: string;
  readonly restCallsPerSecond: number | undefined;
  readonly grpcCallsPerSecond: number | undefined;
}

interface StoredRun {
  readonly machine?: MachineDescription;
  readonly phases?: readonly Pick<PhaseResult, "key" | "loop">[];
}

export async function newestPostgresRun(
  dir: string,
  machine: MachineDescription,
): Promise<PostgresReference | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  // Named by their start time (ISO), so the newest sorts last.
  for (const name of names
    .filter((n) => n.endsWith(".json"))
    .sort()
    .reverse()) {
    const run = await readFile(join(dir, name), "utf8")
      .then((text) => JSON.parse(text) as StoredRun)
      .catch(() => undefined);
    if (run?.machine?.database.kind !== "postgres" || !sameMachine(run.machine, machine)) continue;
    const closed = (key: string) => run.phases?.find((phase) => phase.key === key)?.loop.callsPerSecond;
    if (closed("closed.rest") === undefined && closed("closed.grpc") === undefined) continue;
    return { file: name, restCallsPerSecond: closed("closed.rest"), grpcCallsPerSecond: closed("closed.grpc") };
  }
  return undefined;
}

function sameMachine(a: MachineDescription, b: MachineDescription): boolean {
  return a.cpuModel === b.cpuModel && a.cpuCount === b.cpuCount && a.totalMemoryGb === b.totalMemoryGb && a.os === b.os;
}
