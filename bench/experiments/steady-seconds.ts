import { readFileSync } from "node:fs";
import { createGrpcDriver } from "../load/grpc-load.ts";
import { runOpenLoop } from "../load/open-loop.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { recoveryOf } from "../phases/overload-phases.ts";
import { progress } from "../phases/phase.ts";
import { scopePostgresCpu } from "../phases/resources.ts";
import { startSeededService } from "./seeded-service.ts";

// `node bench/experiments/steady-seconds.ts [calls/s] [seconds] [rest|grpc]`: a steady
// open loop with no burst anywhere near it, and for each second its start p99
// beside what the server's /metrics said of that second (the event loop's
// longest delay in its last 5 s window, milliseconds of young and full garbage collection) and the
// machine's steal time. How far one second strays by itself is what a
// recovery after a burst is judged against. Needs DATABASE_URL.

const rate = Number(process.argv[2] ?? 100);
const seconds = Number(process.argv[3] ?? 40);
const via = process.argv[4] ?? "rest";
const CUSTOMERS = 10_000;

const { service, keys, workload, stamp, close } = await startSeededService(CUSTOMERS, 10);
scopePostgresCpu(stamp);
try {
  const driver = via === "grpc" ? createGrpcDriver(service.url, keys) : createRestDriver(service.url, keys, 256);
  try {
    // Warm: new connections and a cold server are not what is measured.
    await runOpenLoop(driver, workload, { callsPerSecond: rate, durationSeconds: 5 });
    const server = serverSeconds(service.metricsUrl);
    await server.next();
    const from = performance.now();
    const starts: { at: number; ms: number | undefined }[] = [];
    const sampling = setInterval(() => void server.next(), 1000);
    const loop = await runOpenLoop(driver, workload, {
      callsPerSecond: rate,
      durationSeconds: seconds,
      onStart: (at, ms) => starts.push({ at, ms }),
    });
    clearInterval(sampling);
    // The same per-second p99 the bench prints after a burst.
    const { p99s } = recoveryOf(starts, from, loop.start.latency.p99Ms);
    const lines = p99s.map(
      (p99, second) =>
        `${String(second).padStart(3)}  start p99 ${p99.toFixed(0).padStart(5)} ms  ${server.seen[second + 1] ?? ""}`,
    );
    process.stdout.write(
      `${via}, ${rate} calls/s for ${seconds} s: start p99 ${loop.start.latency.p99Ms.toFixed(1)} ms over the whole run\n` +
        `${lines.join("\n")}\n`,
    );
  } finally {
    await driver.close();
  }
} finally {
  await close();
}

/** Reads /metrics and /proc/stat at each next(); `seen[i]` describes the second before the i-th reading. */
function serverSeconds(baseUrl: string) {
  const seen: string[] = [];
  let gcBefore: Record<string, number> | undefined;
  let stealBefore: number | undefined;
  return {
    seen,
    async next() {
      try {
        const text = await (await fetch(new URL("/metrics", baseUrl), { signal: AbortSignal.timeout(900) })).text();
        // The service reports the delay over 5 s windows (src/metrics/runtime-metrics.ts): the last one closed.
        const lagMax = Number(/^nodejs_eventloop_delay_max_seconds (\S+)/m.exec(text)?.[1]) * 1000;
        const gc: Record<string, number> = {};
        for (const m of text.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} (\S+)/gm))
          gc[m[1]] = Number(m[2]);
        const gcMs = (kind: string) => ((gc[kind] ?? 0) - (gcBefore?.[kind] ?? gc[kind] ?? 0)) * 1000;
        // The fields of /proc/stat's first line: user nice system idle iowait irq softirq steal, in ticks.
        const steal = Number(readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/)[8]);
        seen.push(
          `loop delay max (5 s) ${lagMax.toFixed(0).padStart(3)} ms, GC young ${gcMs("minor").toFixed(0).padStart(3)} ms, ` +
            `full ${(gcMs("major") + gcMs("incremental")).toFixed(0).padStart(3)} ms, steal ${steal - (stealBefore ?? steal)} ticks`,
        );
        gcBefore = gc;
        stealBefore = steal;
      } catch (error) {
        seen.push(`no reading (${(error as Error).message})`);
        progress(`metrics unread: ${(error as Error).message}`);
      }
    },
  };
}
