import { type CallDriver, failureLabel } from "../load/call-driver.ts";
import { createGrpcDriver } from "../load/grpc-load.ts";
import { isRefusal } from "../load/operation-stats.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createWorkload } from "../load/workload.ts";
import { createResourceMonitor } from "../phases/resources.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { createBenchDatabase } from "../service/bench-database.ts";
import { seedPopulation } from "../service/seed.ts";
import { randomToken, startServiceProcess } from "../service/server-process.ts";

// `node bench/experiments/refusal-cost.ts [seconds] [rounds]`: the server's CPU-ms per
// accepted start and per refused one, with ADMISSION_EARLY_REFUSAL on and off
// in turn. A fixed limit of one call and no queue: one client in flight is
// always admitted (the cost of an accepted start), 64 are mostly refused.
// CPU time, unlike latency, barely depends on what else the machine runs.
// Needs DATABASE_URL (a fresh database is created there).

const seconds = Number(process.argv[2] ?? 5);
const rounds = Number(process.argv[3] ?? 2);
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const database = await createBenchDatabase(process.env.DATABASE_URL, `refusal_${stamp}`);

interface Counts {
  readonly accepted: number;
  readonly refused: number;
  readonly cpuMs: number;
}

/** Starts only, `concurrency` at a time, for `seconds`; the server's CPU over the same time. */
async function load(
  driver: CallDriver,
  pid: number,
  concurrency: number,
  next: () => ReturnType<typeof workload.next>,
): Promise<Counts> {
  const monitor = createResourceMonitor(pid);
  const finish = monitor.begin();
  const began = performance.now();
  const until = began + seconds * 1000;
  let accepted = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        try {
          await driver.start(next());
          accepted++;
        } catch (error) {
          if (isRefusal(failureLabel(error))) refused++;
          else throw error;
        }
      }
    }),
  );
  const usage = finish();
  monitor.close();
  const elapsed = (performance.now() - began) / 1000;
  return { accepted, refused, cpuMs: ((usage.serverCpuPercent ?? 0) / 100) * elapsed * 1000 };
}

const workload = createWorkload({ population: 1000, runTag: stamp });
try {
  await seedPopulation(database, 0, 1000);
  process.stdout.write("early  via   accepted-alone CPU-ms/start  mixed: accepted refused  CPU-ms/refusal\n");
  for (let round = 0; round < rounds; round++) {
    for (const early of ["on", "off"] as const) {
      const adminToken = randomToken();
      const server = await startServiceProcess({
        databaseEnv: database.env,
        adminToken,
        serverEnv: {
          ADMISSION_EARLY_REFUSAL: early,
          ADMISSION_INITIAL_LIMIT: "1",
          ADMISSION_MIN_LIMIT: "1",
          ADMISSION_MAX_LIMIT: "1",
          ADMISSION_QUEUE_SIZE: "0",
        },
      });
      try {
        const keys = await createApiKeys(server.url, adminToken, 4);
        for (const [via, make] of [
          ["REST", () => createRestDriver(server.url, keys, 64)],
          ["gRPC", () => createGrpcDriver(server.url, keys)],
        ] as const) {
          const driver = make();
          const next = () => workload.next();
          await load(driver, server.pid, 1, next); // warm-up
          const alone = await load(driver, server.pid, 1, next);
          const perAccepted = alone.cpuMs / alone.accepted;
          const mixed = await load(driver, server.pid, 64, next);
          const perRefusal = (mixed.cpuMs - perAccepted * mixed.accepted) / mixed.refused;
          await driver.close();
          process.stdout.write(
            `${early.padEnd(5)}  ${via}  ${alone.accepted.toString().padStart(6)} ${perAccepted.toFixed(2).padStart(8)}` +
              `      ${mixed.accepted.toString().padStart(6)} ${mixed.refused.toString().padStart(7)}  ${perRefusal.toFixed(3)}\n`,
          );
        }
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  await database.dispose();
}
