import { envToConfig } from "../../src/config.ts";
import { startServer } from "../../src/server.ts";
import { alternateDrivers, type CallDriver } from "../load/call-driver.ts";
import { runClosedLoop } from "../load/closed-loop.ts";
import { createGrpcDriver } from "../load/grpc-load.ts";
import { runOpenLoop } from "../load/open-loop.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createWorkload } from "../load/workload.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { createBenchDatabase } from "../service/bench-database.ts";
import { seedPopulation } from "../service/seed.ts";
import { randomToken } from "../service/server-process.ts";

// `node bench/experiments/in-flight-experiment.ts [seconds] [factor]`: how many calls are
// in flight inside the service when the same open loop past capacity comes
// over 32 REST connections or 2 gRPC channels, with the limiter off and on.
// The server runs in this process so its in-flight count can be read directly;
// client and server share one event loop, so compare the rows, not the
// absolute figures. Needs DATABASE_URL (a fresh database is created there).

const seconds = Number(process.argv[2] ?? 5);
const factor = Number(process.argv[3] ?? 1.5);
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const database = await createBenchDatabase(process.env.DATABASE_URL, `inflight_${stamp}`);
try {
  await seedPopulation(database, 0, 1000);
  const workload = createWorkload({ population: 1000, runTag: stamp });
  let capacity = 0;
  for (const limiter of ["off", "on"] as const) {
    const adminToken = randomToken();
    const server = await startServer(
      envToConfig({
        ...database.env,
        PORT: "0",
        ADMIN_TOKEN: adminToken,
        ADMIN_LISTEN: "public",
        LOG_LEVEL: "error",
        ADMISSION_CONTROL: limiter,
      }),
    );
    try {
      const keys = await createApiKeys(server.url, adminToken, 10);
      if (capacity === 0) {
        const rest = createRestDriver(server.url, keys, 16);
        capacity = (
          await runClosedLoop(rest, workload, { concurrency: 16, durationSeconds: seconds, warmupSeconds: 1 })
        ).callsPerSecond;
        await rest.close();
        process.stdout.write(`C (closed loop, 16 in flight, REST): ${capacity.toFixed(1)} calls/s\n`);
      }
      const drivers: [string, () => CallDriver][] = [
        ["REST, 32 connections", () => createRestDriver(server.url, keys, 32)],
        [
          "gRPC, 2 channels",
          () => alternateDrivers([createGrpcDriver(server.url, keys), createGrpcDriver(server.url, keys)]),
        ],
      ];
      for (const [name, make] of drivers) {
        const driver = make();
        let max = 0;
        let sum = 0;
        let samples = 0;
        const sampler = setInterval(() => {
          const { inFlight } = server.context.admission.stats();
          max = Math.max(max, inFlight);
          sum += inFlight;
          samples++;
        }, 5);
        const loop = await runOpenLoop(driver, workload, {
          callsPerSecond: factor * capacity,
          durationSeconds: seconds,
        });
        clearInterval(sampler);
        await driver.close();
        process.stdout.write(
          `limiter ${limiter}, ${name}, ${factor} × C: in flight in the service max ${max}, mean ${(sum / samples).toFixed(1)}; ` +
            `${loop.callsPerSecond.toFixed(1)} calls/s completed, start p99 ${loop.start.latency.p99Ms.toFixed(0)} ms, ` +
            `refusal p99 ${loop.refusals?.p99Ms.toFixed(0)} ms, start failures ${JSON.stringify(loop.start.errorsByKind)}\n`,
        );
      }
    } finally {
      await server.close();
    }
  }
} finally {
  await database.dispose();
}
