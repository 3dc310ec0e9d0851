import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createGrpcDriver } from "../load/grpc-load.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createWorkload, type Workload } from "../load/workload.ts";
import type { BenchOptions } from "../options.ts";
import type { CodeAbResult, CodeAbRun, CodeAbSide, PhaseResult } from "../report/results.ts";
import { sourceVersion } from "../report/source-version.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { type BenchDatabase, createBenchDatabase } from "../service/bench-database.ts";
import { seedPopulation } from "../service/seed.ts";
import { THIS_CHECKOUT } from "../service/server-process.ts";
import { createService, type Service } from "../service/service.ts";
import { progress } from "./phase.ts";
import { closedLoopPhase, openLoopPhase } from "./service-phases.ts";

// `npm run bench -- --against DIR`: the same run measures two versions of the
// service, A (the checkout in DIR) and B (this one), in alternating rounds
// (AB, BA, AB, …), so a change is judged against the noise of the same
// minutes on the same machine rather than against another day's run. Each
// side has a database of its own, made by its own server's migrations and
// seeded alike, so neither side's writes change what the other reads.

interface Side {
  readonly side: CodeAbSide;
  readonly database: BenchDatabase;
  readonly service: Service;
  readonly workload: Workload;
  keys: string[];
}

export async function codeAbPhases(
  options: BenchOptions & { readonly against: string },
  stamp: string,
  adminToken: string,
): Promise<CodeAbResult> {
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl === undefined || databaseUrl === "") throw new Error("--against needs DATABASE_URL (PostgreSQL)");
  const otherRoot = resolve(options.against);
  if (!existsSync(join(otherRoot, "src/main.ts"))) throw new Error(`--against ${otherRoot}: no src/main.ts there`);
  const sides: Side[] = [];
  try {
    for (const [label, root] of [
      ["A", otherRoot],
      ["B", THIS_CHECKOUT],
    ] as const) {
      sides.push(await prepareSide(label, root, databaseUrl, stamp, options, adminToken));
    }
    const runs: CodeAbRun[] = [];
    let openRates: { rest: number; grpc: number } | undefined;
    for (let round = 1; round <= options.abRounds; round++) {
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      for (const side of order) {
        progress(`A/B round ${round}: ${side.side.label} (${side.side.commit ?? side.side.root})`);
        const measured = await measureSide(side, options, openRates);
        openRates ??= measured.openRates;
        runs.push({ round, label: side.side.label, phases: measured.phases, rssMb: measured.rssMb });
      }
    }
    return { sides: sides.map((side) => side.side), rounds: options.abRounds, openRates: openRates!, runs };
  } finally {
    for (const { service, database } of sides) {
      await service.stop().catch(() => {});
      if (!options.keep)
        await database.dispose().catch((error) => progress(`could not drop ${database.name}: ${error}`));
    }
  }
}

/** A database of the side's own: migrated by its own server (its schema may differ), then seeded. */
async function prepareSide(
  label: "A" | "B",
  root: string,
  databaseUrl: string,
  stamp: string,
  options: BenchOptions,
  adminToken: string,
): Promise<Side> {
  const database = await createBenchDatabase(databaseUrl, `${stamp}_${label.toLowerCase()}`);
  const service = createService({
    databaseEnv: database.env,
    adminToken,
    postgres: true,
    serverEnv: { ADMISSION_CONTROL: options.limiter },
    root,
  });
  await service.start();
  await service.stop();
  const { version } = await seedPopulation(database, 0, options.customers, { schema: "present" });
  await service.start();
  const keys = await createApiKeys(service.url, adminToken, options.keys);
  await service.stop();
  const commit = sourceVersion(root)?.commit;
  return {
    side: { label, root, commit, databaseVersion: version },
    database,
    service,
    workload: createWorkload({ population: options.customers, runTag: `${stamp}${label}` }),
    keys,
  };
}

/**
 * One side's turn: its server started afresh, both closed loops, then the open
 * loops at the rates of the run's first closed loops (so both sides are offered
 * the same load), and the server stopped.
 */
async function measureSide(
  { service, workload, keys }: Side,
  options: BenchOptions,
  rates: { rest: number; grpc: number } | undefined,
): Promise<{ phases: PhaseResult[]; rssMb: number | undefined; openRates: { rest: number; grpc: number } }> {
  await service.start();
  try {
    const rest = (connections: number) => createRestDriver(service.url, keys, connections);
    const grpc = () => createGrpcDriver(service.url, keys);
    const closed = {
      concurrency: options.concurrency,
      durationSeconds: options.duration,
      warmupSeconds: options.warmup,
    };
    const phases: PhaseResult[] = [
      await closedLoopPhase(service, workload, { key: "closed.rest", driver: rest(options.concurrency) }, closed),
      await closedLoopPhase(service, workload, { key: "closed.grpc", driver: grpc() }, closed),
    ];
    const openRates = rates ?? {
      rest: phases[0].loop.callsPerSecond / 2,
      grpc: phases[1].loop.callsPerSecond / 2,
    };
    for (const [key, rate, driver] of [
      ["open.rest", openRates.rest, rest(options.connections)],
      ["open.grpc", openRates.grpc, grpc()],
    ] as const) {
      const title = `open loop, ${rate.toFixed(0)} calls/s (50 % of the first closed loop)`;
      const load = { callsPerSecond: rate, durationSeconds: options.duration };
      phases.push(await openLoopPhase(service, workload, { key, point: "50 %", title, driver }, load, options.warmup));
    }
    return { phases, rssMb: service.rssMb(), openRates };
  } finally {
    await service.stop();
  }
}
