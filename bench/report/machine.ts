import os from "node:os";
import type { MachineDescription } from "./results.ts";

// The machine the figures belong to.

export function describeMachine(database: { kind: string; version: string }): MachineDescription {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cpuCount: cpus.length,
    totalMemoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    database,
  };
}
