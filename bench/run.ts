import { fileURLToPath } from "node:url";
import { alternateDrivers } from "./load/call-driver.ts";
import { clientModels } from "./load/client-models.ts";
import { createGrpcDriver } from "./load/grpc-load.ts";
import { createRestDriver, createRestPerRequestDriver } from "./load/rest-load.ts";
import { createWorkload } from "./load/workload.ts";
import { parseOptions, USAGE, UsageError } from "./options.ts";
import { readBackWrites, type WriteLedger } from "./phases/acknowledged-writes.ts";
import { measureDbCeiling, measureHttpCeiling } from "./phases/ceilings.ts";
import { codeAbPhases } from "./phases/code-ab.ts";
import { contactFiguresReport } from "./phases/contact-figures-phase.ts";
import { growPopulation } from "./phases/growth-phase.ts";
import { floorsAtLoadPoint, openLoopsAtLoadPoints, openTitle, protocolLoads } from "./phases/load-point-phases.ts";
import { overloadPhases } from "./phases/overload-phases.ts";
import { measurePgbench } from "./phases/pgbench-anchor.ts";
import { progress } from "./phases/phase.ts";
import { machineBusyPercent, scopePostgresCpu } from "./phases/resources.ts";
import { closedLoopPhase, openLoopPhase } from "./phases/service-phases.ts";
import { twoInstancePhase } from "./phases/two-instance-phase.ts";
import { analyze } from "./report/analysis.ts";
import { formatCodeAb } from "./report/code-ab-report.ts";
import { describeMachine } from "./report/machine.ts";
import { newestPostgresRun } from "./report/postgres-reference.ts";
import { summarizeProfiles } from "./report/profile-summary.ts";
import { formatReport } from "./report/report.ts";
import type { GrowthRecord, OverloadResult, PhaseResult, SeedRecord } from "./report/results.ts";
import { writeResults } from "./report/results-file.ts";
import { sourceVersion } from "./report/source-version.ts";
import { checkTargets } from "./report/targets.ts";
import { createApiKeys } from "./service/api-keys.ts";
import { createBenchAccount } from "./service/bench-account.ts";
import { type BenchDatabase, createBenchDatabase, databaseVersion } from "./service/bench-database.ts";
import { seedPopulation } from "./service/seed.ts";
import { randomToken } from "./service/server-process.ts";
import { createService } from "./service/service.ts";

// `npm run bench`: seed (by default through the service's API: --seed) → pgbench
// → growth by real calls → DB ceiling → HTTP
// ceiling → the service (closed loop, then open loops at 50 % and 80 % of it
// and at --rate; REST and gRPC) → DB-only and bare-HTTP open loops at 50 % →
// bursts past capacity → a larger population → soak → two instances against
// one → report. Every measured phase but the bursts counts the database
// blocks it touched per call.

const RESULTS_DIR = fileURLToPath(new URL("results/", import.meta.url));

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options === "help") return void process.stdout.write(`${USAGE}\n`);
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/\D/g, "").slice(0, 14);
  const busyBefore = await machineBusyPercent();
  if (busyBefore > 15) progress(`warning: the machine is already ${busyBefore.toFixed(0)} % busy`);

  // Both of the run's databases (cc_bench_<stamp>, cc_pgbench_<stamp>) hold its stamp.
  scopePostgresCpu(stamp);
  if (options.against !== undefined) {
    const result = await codeAbPhases({ ...options, against: options.against }, stamp, randomToken());
    const file = await writeResults(
      RESULTS_DIR,
      startedAt,
      {
        kind: "code-ab",
        options,
        machine: describeMachine({ kind: "postgres", version: result.sides[0]?.databaseVersion ?? "unknown" }),
        ...result,
      },
      {},
    );
    return void process.stdout.write(formatCodeAb(result, file));
  }
  const database = await createBenchDatabase(process.env.DATABASE_URL, stamp);
  progress(`database: ${database.kind} ${database.name}`);
  const adminToken = randomToken();
  const service = createService({
    databaseEnv: database.env,
    adminToken,
    postgres: database.kind === "postgres",
    serverEnv: { ADMISSION_CONTROL: options.limiter },
    cpuProfiles: options.cpuProf ? { dir: RESULTS_DIR, stem: `server-${stamp}` } : undefined,
  });
  const phases: PhaseResult[] = [];
  const seeds: SeedRecord[] = [];
  const overload: OverloadResult[] = [];
  const ledgers: WriteLedger[] = [];
  const closedLoop = {
    concurrency: options.concurrency,
    durationSeconds: options.duration,
    warmupSeconds: options.warmup,
  };
  const embedded = database.kind === "pglite";

  try {
    const sqlSeed = options.seed === "sql" ? await seedPopulation(database, 0, options.customers) : undefined;
    if (sqlSeed !== undefined) seeds.push(sqlSeed.record);
    const version = sqlSeed?.version ?? (await versionOf(database));
    const pgbench = await measurePgbench(database, process.env.DATABASE_URL, {
      clients: options.concurrency,
      seconds: options.duration,
      stamp,
    });

    await service.start();
    // Seeded through the API, the account is made as an operator makes one, and every caller by a real call.
    const accountId = sqlSeed === undefined ? await createBenchAccount(service.url, adminToken) : undefined;
    const workload = createWorkload({
      population: sqlSeed === undefined ? 0 : options.customers,
      runTag: stamp,
      accountId,
    });
    const keys = await createApiKeys(service.url, adminToken, options.keys, workload.accountId);
    progress(`${keys.length} API keys created through the admin API`);
    const rssAfterStartMb = service.rssMb();
    const rest = (connections = options.connections) => createRestDriver(service.url, keys, connections);
    const grpc = () => createGrpcDriver(service.url, keys);
    if (sqlSeed === undefined) {
      const through = await growPopulation(alternateDrivers([rest(options.concurrency), grpc()]), workload, {
        calls: options.customers,
        concurrency: options.concurrency,
      });
      seeds.push({ from: 0, to: through.customersAdded, seconds: through.seconds, via: "api" });
    }
    let growth: GrowthRecord | undefined;
    if (options.growth > 0) {
      growth = await growPopulation(alternateDrivers([rest(options.concurrency), grpc()]), workload, {
        calls: options.growth,
        concurrency: options.concurrency,
      });
    }

    // The embedded database has a single holder: the server stops while this process holds it.
    if (embedded) await service.stop();
    phases.push(await measureDbCeiling(database, workload, closedLoop));
    phases.push(await measureHttpCeiling(workload, closedLoop));
    await service.start();

    // Closed loops first: the open-loop runs, whose tails matter most, then meet a warm server.
    phases.push(
      await closedLoopPhase(service, workload, { key: "closed.rest", driver: rest(options.concurrency) }, closedLoop),
    );
    phases.push(await closedLoopPhase(service, workload, { key: "closed.grpc", driver: grpc() }, closedLoop));
    // The capacity of the client that opens a connection per request, for its own load points and bursts.
    phases.push(
      await closedLoopPhase(
        service,
        workload,
        { key: "closed.rest-new", driver: createRestPerRequestDriver(service.url, keys) },
        closedLoop,
      ),
    );
    const models = clientModels(service.url, keys, options.connections);
    const protocols = protocolLoads(phases, models, options.rate);
    const timing = {
      durationSeconds: options.duration,
      warmupSeconds: options.warmup,
      connections: options.connections,
    };
    phases.push(...(await openLoopsAtLoadPoints(service, workload, protocols, timing)));
    // The floors at each protocol's 50 % rate, with the same client and timetable.
    if (embedded) await service.stop();
    phases.push(...(await floorsAtLoadPoint(database, workload, protocols, timing)));
    await service.start();

    if (options.overloadDuration > 0) {
      for (const model of models) {
        const capacity = phases.find((phase) => phase.key === model.capacityFrom)?.loop.callsPerSecond ?? 0;
        const run = await overloadPhases(service, workload, model.burstKey, model.driver(), {
          capacityCallsPerSecond: capacity,
          durationSeconds: options.overloadDuration,
          recoverySeconds: options.recovery,
          warmupSeconds: options.warmup,
          limiter: options.limiter,
        });
        overload.push(run.result);
        ledgers.push(run.ledger);
        phases.push(...run.phases);
      }
    }

    if (options.scaleTo !== undefined) {
      if (database.kind === "pglite") await service.stop();
      seeds.push((await seedPopulation(database, options.customers, options.scaleTo)).record);
      workload.population = options.scaleTo;
      await service.start();
      const fixed = { point: "fixed", callsPerSecond: options.rate };
      const load = { callsPerSecond: options.rate, durationSeconds: options.duration };
      for (const [key, driver] of [
        ["scaled.rest", rest()],
        ["scaled.grpc", grpc()],
      ] as const) {
        const phase = { key, point: fixed.point, title: openTitle(fixed), driver };
        phases.push(await openLoopPhase(service, workload, phase, load, options.warmup));
      }
    }
    if (options.soak > 0) {
      const title = `soak, ${options.soakRate} calls/s for ${options.soak} s`;
      const driver = alternateDrivers([rest(), grpc()]);
      const load = { callsPerSecond: options.soakRate, durationSeconds: options.soak };
      phases.push(await openLoopPhase(service, workload, { key: "soak", title, driver }, load, options.warmup));
    }
    await service.stop();
    for (const [i, ledger] of ledgers.entries())
      overload[i] = { ...overload[i], writes: await readBackWrites(database, ledger) };
    const scaleOut =
      options.scaleOut === "on"
        ? await twoInstancePhase(database, adminToken, workload, {
            ...closedLoop,
            keys: options.keys,
            limiter: options.limiter,
          })
        : { skipped: "--scale-out off" };
    if (scaleOut.skipped !== undefined) progress(`scale-out skipped: ${scaleOut.skipped}`);

    const results = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      options,
      machine: describeMachine({ kind: database.kind, version }),
      machineBusyBeforePercent: busyBefore,
      source: sourceVersion(),
      server: {
        logLevel: "info",
        rateLimitWindows: process.env.REDIS_URL ? "Redis (REDIS_URL)" : "in-process",
        dbPoolSize: process.env.DB_POOL_SIZE ?? "the service's default",
        admissionControl: options.limiter,
      },
      serverRssAfterStartMb: rssAfterStartMb,
      seeding: seeds,
      growth,
      pgbench,
      phases,
      overload,
      scaleOut: scaleOut.result,
      scaleOutSkipped: scaleOut.skipped,
      serverWarnings: Object.fromEntries(service.problems),
      profile: service.profiles.length > 0 ? await summarizeProfiles(service.profiles) : undefined,
    };
    const analysis = analyze(results);
    const postgres =
      results.machine.database.kind === "pglite" ? await newestPostgresRun(RESULTS_DIR, results.machine) : undefined;
    const targets = checkTargets(results, analysis, postgres);
    const file = await writeResults(RESULTS_DIR, startedAt, results, { analysis, targets });
    process.stdout.write(formatReport(results, analysis, targets, file));
    process.stdout.write(await contactFiguresReport({ databaseUrl: process.env.DATABASE_URL, stamp }));
  } finally {
    await service.stop().catch(() => {});
    if (options.keep) progress(`kept ${database.kind} database ${database.name}`);
    else await database.dispose().catch((error) => progress(`could not remove ${database.name}: ${error}`));
  }
}

/** The server's version, read before the service holds the database (PGlite has one holder). */
async function versionOf(database: BenchDatabase): Promise<string> {
  const opened = await database.open();
  try {
    return await databaseVersion(opened);
  } finally {
    await opened.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof UsageError ? `${error.message}\n\n${USAGE}` : (error?.stack ?? error)}\n`);
  process.exitCode = 1;
});
