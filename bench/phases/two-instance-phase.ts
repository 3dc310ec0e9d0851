import { cpus } from "node:os";
import { alternateDrivers, type CallDriver } from "../load/call-driver.ts";
import { runClosedLoop } from "../load/closed-loop.ts";
import { createGrpcDriver } from "../load/grpc-load.ts";
import type { LoopResult } from "../load/loop-result.ts";
import { createRestDriver } from "../load/rest-load.ts";
import type { Workload } from "../load/workload.ts";
import type { ScaleOutResult, ScaleOutRun } from "../report/results.ts";
import { createApiKeys } from "../service/api-keys.ts";
import type { BenchDatabase } from "../service/bench-database.ts";
import { redisProblem, withoutPassword } from "../service/redis-check.ts";
import { createService, type Service } from "../service/service.ts";
import { startLockWaitSampler } from "./lock-waits.ts";
import { progress } from "./phase.ts";

// Scale-out: two instances of the service on the same PostgreSQL database,
// sharing their rate-limit windows in Redis, driven on one account. First one
// instance carries the closed loop while the second idles, then both carry
// half of it each: the only difference is the second instance. Calls
// alternate REST and gRPC on every instance, so both protocols are in both runs.

export interface ScaleOutOptions {
  readonly concurrency: number;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly keys: number;
  readonly limiter: "on" | "off";
}

const INSTANCES = 2;
const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** The scale-out result, or why it did not run. */
export async function twoInstancePhase(
  database: BenchDatabase,
  adminToken: string,
  workload: Workload,
  options: ScaleOutOptions,
): Promise<{ result?: ScaleOutResult; skipped?: string }> {
  if (database.kind !== "postgres") {
    return { skipped: "the embedded database has a single holder: a second instance cannot open it" };
  }
  const redisUrl = process.env.REDIS_URL || DEFAULT_REDIS_URL;
  const unreachable = await redisProblem(redisUrl);
  if (unreachable !== undefined)
    return { skipped: `Redis at ${withoutPassword(redisUrl)} is unreachable (${unreachable})` };

  const services = Array.from({ length: INSTANCES }, (_, i) =>
    createService({
      databaseEnv: database.env,
      adminToken,
      postgres: i === 0,
      serverEnv: { ADMISSION_CONTROL: options.limiter, REDIS_URL: redisUrl },
    }),
  );
  let runs: { one: ScaleOutRun; two: ScaleOutRun };
  try {
    runs = await oneThenTwo(services, database.env.DATABASE_URL, adminToken, workload, options);
  } catch (error) {
    progress(`scale-out failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`);
    return { skipped: `failed: ${error instanceof Error ? error.message : error}` };
  } finally {
    for (const service of services) await service.stop().catch(() => {});
  }
  const { one, two } = runs;
  const serverWarnings: Record<string, number> = {};
  for (const service of services) {
    for (const [message, n] of service.problems) serverWarnings[message] = (serverWarnings[message] ?? 0) + n;
  }
  return {
    result: {
      oneInstanceCallsPerSecond: one.callsPerSecond,
      twoInstanceCallsPerSecond: two.callsPerSecond,
      ratio: two.callsPerSecond / one.callsPerSecond,
      perInstanceCallsPerSecond: two.perInstance.map((loop) => loop.callsPerSecond),
      concurrency: options.concurrency,
      via: "REST+gRPC alternating",
      customers: workload.population,
      redis: withoutPassword(redisUrl),
      one,
      two,
      serverWarnings,
    },
  };
}

async function oneThenTwo(
  services: readonly Service[],
  databaseUrl: string,
  adminToken: string,
  workload: Workload,
  options: ScaleOutOptions,
): Promise<{ one: ScaleOutRun; two: ScaleOutRun }> {
  for (const service of services) await service.start();
  const keys = await createApiKeys(services[0].url, adminToken, options.keys, workload.accountId);
  // Every instance rotates over every key, so each key's window is shared through Redis.
  const driverFor = (service: Service, workers: number) =>
    alternateDrivers([createRestDriver(service.url, keys, workers), createGrpcDriver(service.url, keys)]);
  const drivers = (loaded: number) =>
    services.slice(0, loaded).map((service, i) => driverFor(service, workersOf(options.concurrency, loaded, i)));
  // The second instance has not run yet: warm it so both meet the two-instance run alike.
  if (options.warmupSeconds > 0) {
    const second = driverFor(services[1], options.concurrency);
    await closedLoops([second], workload, options.concurrency, options.warmupSeconds).finally(() => second.close());
  }
  const one = await measureRun(services, drivers(1), workload, options, databaseUrl);
  const two = await measureRun(services, drivers(INSTANCES), workload, options, databaseUrl);
  return { one, two };
}

async function measureRun(
  services: readonly Service[],
  drivers: readonly CallDriver[],
  workload: Workload,
  options: ScaleOutOptions,
  databaseUrl: string,
): Promise<ScaleOutRun> {
  progress(`scale-out: ${drivers.length} of ${services.length} instances, ${options.concurrency} in flight`);
  try {
    if (options.warmupSeconds > 0) await closedLoops(drivers, workload, options.concurrency, options.warmupSeconds);
    const sampler = await startLockWaitSampler(databaseUrl);
    const finishes = services.map((service) => service.monitor.begin());
    const perInstance = await closedLoops(drivers, workload, options.concurrency, options.durationSeconds).catch(
      async (error) => {
        await sampler.stop().catch(() => {});
        throw error;
      },
    );
    const usages = finishes.map((finish) => finish());
    const lockWaits = await sampler.stop();
    const callsPerSecond = perInstance.reduce((sum, loop) => sum + loop.callsPerSecond, 0);
    const serversPercent = usages.map((usage) => usage.serverCpuPercent ?? 0);
    const servers = serversPercent.reduce((sum, n) => sum + n, 0);
    const { clientCpuPercent: client, postgresCpuPercent: postgres = 0, machineCpuPercent } = usages[0];
    const perCall = (percent: number) => (percent * 10) / callsPerSecond;
    const errors = perInstance.reduce((sum, loop) => sum + loop.start.errors + loop.end.errors, 0);
    progress(
      `  ${callsPerSecond.toFixed(1)} calls/s (${perInstance.map((loop) => loop.callsPerSecond.toFixed(1)).join(" + ")}), ` +
        `${lockWaits.lockWaitingMean.toFixed(2)} backends waiting for a lock per sample, ${errors} errors`,
    );
    return {
      instancesLoaded: drivers.length,
      callsPerSecond,
      perInstance,
      cpu: {
        serversPercent,
        clientPercent: client,
        postgresPercent: postgres,
        otherPercent: Math.max(0, machineCpuPercent * cpus().length - servers - client - postgres),
        machinePercent: machineCpuPercent,
      },
      cpuMsPerCall: { servers: perCall(servers), postgres: perCall(postgres), client: perCall(client) },
      lockWaits,
    };
  } finally {
    await Promise.all(drivers.map((driver) => driver.close()));
  }
}

/** One closed loop per driver, all at once, C split between them. */
function closedLoops(
  drivers: readonly CallDriver[],
  workload: Workload,
  concurrency: number,
  durationSeconds: number,
): Promise<LoopResult[]> {
  return Promise.all(
    drivers.map((driver, i) =>
      runClosedLoop(driver, workload, {
        concurrency: workersOf(concurrency, drivers.length, i),
        durationSeconds,
        warmupSeconds: 0,
      }),
    ),
  );
}

/** Instance i's share of C calls in flight over n instances. */
function workersOf(concurrency: number, n: number, i: number): number {
  return Math.floor(concurrency / n) + (i < concurrency % n ? 1 : 0);
}
