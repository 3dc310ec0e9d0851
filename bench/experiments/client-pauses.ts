import { PerformanceObserver } from "node:perf_hooks";
import { createGrpcDriver } from "../load/grpc-load.ts";
import { runOpenLoop } from "../load/open-loop.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { fixed, formatTable, median } from "../report/table.ts";
import { startSeededService } from "./seeded-service.ts";

// `node bench/experiments/client-pauses.ts [calls/s] [seconds per slice] [slices]`: how much of an open loop's
// start p99 is the load generator's own garbage collection. The client shares the machine and its event loop
// reads every answer, so a collection in the client delays each answer that arrives during it, and the bench
// counts that as the service's latency. Slices of REST (the keep-alive pool) and gRPC (two channels) take turns
// at the same rate against one server; each gives its start p99 over all starts, its p99 over the starts whose
// interval (scheduled send to answer) overlapped no collection in this process, and the collections' count and
// pause time. Needs DATABASE_URL.

const rate = Number(process.argv[2] ?? 180);
const sliceSeconds = Number(process.argv[3] ?? 10);
const slices = Number(process.argv[4] ?? 4);
const CUSTOMERS = 10_000;

interface Pause {
  readonly from: number;
  readonly to: number;
}
const pauses: Pause[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration });
}).observe({ entryTypes: ["gc"] });

const { service, keys, workload, close } = await startSeededService(CUSTOMERS, 10);
try {
  const drivers = [createRestDriver(service.url, keys, 32), createGrpcDriver(service.url, keys, 2)];
  const rows = new Map<string, { all: number[]; clear: number[]; pauses: number[]; pauseMs: number[] }>();
  try {
    for (const driver of drivers) await runOpenLoop(driver, workload, { callsPerSecond: rate, durationSeconds: 3 });
    for (let slice = 0; slice < slices; slice++) {
      for (const driver of slice % 2 === 0 ? drivers : [...drivers].reverse()) {
        const starts: { at: number; ms: number }[] = [];
        pauses.length = 0;
        await runOpenLoop(driver, workload, {
          callsPerSecond: rate,
          durationSeconds: sliceSeconds,
          onStart: (at, ms) => {
            if (ms !== undefined) starts.push({ at, ms });
          },
        });
        const overlapsPause = (start: { at: number; ms: number }) =>
          pauses.some((pause) => pause.from < start.at + start.ms && pause.to > start.at);
        const row = rows.get(driver.name) ?? { all: [], clear: [], pauses: [], pauseMs: [] };
        row.all.push(p99(starts.map((start) => start.ms)));
        row.clear.push(p99(starts.filter((start) => !overlapsPause(start)).map((start) => start.ms)));
        row.pauses.push(pauses.length);
        row.pauseMs.push(pauses.reduce((sum, pause) => sum + pause.to - pause.from, 0));
        rows.set(driver.name, row);
      }
    }
  } finally {
    for (const driver of drivers) await driver.close();
  }
  process.stdout.write(
    `${rate} calls/s, ${slices} slices of ${sliceSeconds} s per client, medians over slices\n` +
      formatTable(
        ["client", "start p99 (ms)", "without client GC (ms)", "client GCs", "client GC ms", "p99 by slice"],
        [...rows].map(([name, row]) => [
          name,
          fixed(median(row.all), 1),
          fixed(median(row.clear), 1),
          fixed(median(row.pauses), 0),
          fixed(median(row.pauseMs), 0),
          row.all.map((value) => value.toFixed(0)).join(" "),
        ]),
      ) +
      "\n",
  );
} finally {
  await close();
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
}
