import { mkdir, writeFile } from "node:fs/promises";
import type { BenchOptions } from "../options.ts";
import type { GrowthRecord } from "../phases/growth-phase.ts";
import type { OverloadResult } from "../phases/overload-phases.ts";
import type { PgbenchAnchor } from "../phases/pgbench-anchor.ts";
import type { PhaseResult } from "../phases/phase.ts";
import type { ScaleOutResult } from "../phases/two-instance-phase.ts";
import type { SeedRecord } from "../service/seed.ts";
import type { MachineDescription } from "./machine.ts";
import type { ProfileSummary } from "./profile-summary.ts";
import type { SourceVersion } from "./source-version.ts";

// Every figure of a run, with the options and the machine, as one JSON file
// in bench/results/, named by the run's start time.

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly options: BenchOptions;
  readonly machine: MachineDescription;
  /** All cores, over one second before the run: other work on the machine disturbs every figure. */
  readonly machineBusyBeforePercent: number;
  readonly source: SourceVersion | undefined;
  readonly server: Readonly<Record<string, string>>;
  /** Server RSS once it had started and answered the admin API, before any load. */
  readonly serverRssAfterStartMb: number | undefined;
  readonly seeding: readonly SeedRecord[];
  /** Customers added by real calls before the measured phases; undefined with --growth 0. */
  readonly growth: GrowthRecord | undefined;
  /** pgbench TPC-B on the same PostgreSQL server, or why it was skipped. */
  readonly pgbench: PgbenchAnchor;
  readonly phases: readonly PhaseResult[];
  /** Bursts past the closed-loop capacity, per protocol. */
  readonly overload: readonly OverloadResult[];
  /** Two instances on one account against one; absent when skipped, with the reason in scaleOutSkipped. */
  readonly scaleOut?: ScaleOutResult;
  readonly scaleOutSkipped?: string;
  readonly serverWarnings: Readonly<Record<string, number>>;
  readonly profile: ProfileSummary | undefined;
}

export type { ScaleOutResult };

export async function writeResults(
  dir: string,
  startedAt: Date,
  results: BenchResults,
  derived: Record<string, unknown>,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = `${dir}${startedAt.toISOString().replace(/:/g, "-")}.json`;
  await writeFile(file, `${JSON.stringify({ ...results, ...derived }, null, 2)}\n`);
  return file;
}
