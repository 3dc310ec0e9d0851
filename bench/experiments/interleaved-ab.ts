import { parseArgs } from "node:util";
import type { CallDriver } from "../load/call-driver.ts";
import { runClosedLoop } from "../load/closed-loop.ts";
import { createGrpcDriver } from "../load/grpc-load.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createWorkload, type Workload } from "../load/workload.ts";
import { progress } from "../phases/phase.ts";
import { scopePostgresCpu } from "../phases/resources.ts";
import { fixed, formatTable, median } from "../report/table.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { type BenchDatabase, createBenchDatabase } from "../service/bench-database.ts";
import { seedPopulation } from "../service/seed.ts";
import { randomToken } from "../service/server-process.ts";
import { createService, type Service } from "../service/service.ts";
import { parseVariant } from "./variant.ts";

// `node bench/experiments/interleaved-ab.ts --a-root ../before [--a "…"] [--b "…"]`: what a change does to the
// CPU a call costs, read finer than `npm run bench -- --against` can. Both servers run at once, each on a
// database of its own seeded alike; closed-loop slices (`--concurrency` in flight, `--slice` seconds) go to one
// then the other, alternating which goes first, so the machine's drift falls on both within seconds. Each slice
// gives the server's CPU per call (from /proc), PostgreSQL's, calls/s and the server's resident memory; the report
// gives each side's median over `--slices` slices, B over A, and "paired B / A", the median of the ratios of
// slices next to each other in time (the steadier figure on a machine whose speed wanders). The side that runs
// second has measured a few per cent higher on this machine however the code differs, so run each comparison both
// ways round (swap --a and --b) and read the two ratios together. A variant is NAME=value settings and Node flags, as in burst-ab.ts;
// POOLER_AT=host:port among them puts a pooler (PgBouncer) between that side's server and its database.
// Needs DATABASE_URL (PostgreSQL; two fresh databases are created there and dropped).

const { values } = parseArgs({
  options: {
    a: { type: "string", default: "" },
    b: { type: "string", default: "" },
    "a-root": { type: "string" },
    "b-root": { type: "string" },
    via: { type: "string", default: "rest" },
    slices: { type: "string", default: "8" },
    slice: { type: "string", default: "6" },
    concurrency: { type: "string", default: "16" },
    customers: { type: "string", default: "10000" },
  },
});
if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL must name a PostgreSQL server");
const via = values.via === "grpc" ? "grpc" : "rest";
const slices = Number(values.slices);
const sliceSeconds = Number(values.slice);
const concurrency = Number(values.concurrency);
const customers = Number(values.customers);
/** Unmeasured seconds at the start of each slice: the other side's load has just stopped. */
const SETTLE_SECONDS = 0.5;
const KEYS = 30;

interface Slice {
  readonly callsPerSecond: number;
  readonly serverCpuMs: number;
  readonly postgresCpuMs: number;
  readonly rssMb: number;
  readonly failures: number;
}

interface Side {
  readonly name: string;
  readonly database: BenchDatabase;
  readonly service: Service;
  driver?: CallDriver;
  workload?: Workload;
  readonly slices: Slice[];
}

const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
scopePostgresCpu(stamp);
const sides: Side[] = [];
try {
  for (const [index, name] of ["A", "B"].entries()) {
    const variant = parseVariant(name === "A" ? values.a : values.b);
    const database = await createBenchDatabase(process.env.DATABASE_URL, `${stamp}_${name.toLowerCase()}`);
    const adminToken = randomToken();
    // POOLER_AT=host:port: the server reaches its database through a pooler there (seeding still goes direct).
    const { POOLER_AT: poolerAt, ...serverEnv } = variant.env;
    const service = createService({
      databaseEnv: poolerAt === undefined ? database.env : throughPooler(database.env, poolerAt),
      adminToken,
      postgres: true,
      root: name === "A" ? values["a-root"] : values["b-root"],
      serverEnv,
      nodeFlags: variant.nodeFlags,
    });
    const side: Side = { name, database, service, slices: [] };
    sides.push(side);
    await seedPopulation(database, 0, customers);
    await service.start();
    const keys = await createApiKeys(service.url, adminToken, KEYS);
    side.driver =
      via === "grpc" ? createGrpcDriver(service.url, keys) : createRestDriver(service.url, keys, concurrency);
    side.workload = createWorkload({ population: customers, runTag: `${stamp}${index}` });
    progress(`${name}: warming`);
    await runClosedLoop(side.driver, side.workload, { concurrency, durationSeconds: 6, warmupSeconds: 0 });
  }
  for (let slice = 0; slice < slices; slice++) {
    for (const side of slice % 2 === 0 ? sides : [...sides].reverse()) {
      const usage = side.service.monitor.begin();
      const loop = await runClosedLoop(side.driver!, side.workload!, {
        concurrency,
        durationSeconds: sliceSeconds,
        warmupSeconds: SETTLE_SECONDS,
      });
      const used = usage();
      // The CPU covers the settling time too; the calls of that time are counted at the slice's rate.
      const calls = loop.callsPerSecond;
      side.slices.push({
        callsPerSecond: calls,
        serverCpuMs: ((used.serverCpuPercent ?? 0) * 10) / calls,
        postgresCpuMs: ((used.postgresCpuPercent ?? 0) * 10) / calls,
        rssMb: side.service.rssMb() ?? 0,
        failures: loop.start.errors + loop.end.errors,
      });
      progress(`${side.name} slice ${slice + 1}: ${fixed(((used.serverCpuPercent ?? 0) * 10) / calls, 3)} ms/call`);
    }
  }
  // Besides the ratio of the medians, the median of each slice's ratio to the other side's slice next to it in
  // time: the machine's drift between slices falls out of it.
  const figure = (label: string, of: (s: Slice) => number, digits: number) => {
    const [a, b] = sides.map((side) => median(side.slices.map(of)));
    const [sliceA, sliceB] = sides.map((side) => side.slices.map(of));
    const paired = median(sliceA!.map((value, i) => sliceB![i]! / value));
    return [
      label,
      ...sides.map((side) => side.slices.map((s) => fixed(of(s), digits)).join(" ")),
      fixed(a, digits),
      fixed(b, digits),
      fixed(b! / a!, 3),
      fixed(paired, 3),
    ];
  };
  console.log(
    `Interleaved A/B over ${via.toUpperCase()}, ${slices} slices of ${sliceSeconds} s each, ${concurrency} in flight`,
  );
  console.log(`A: ${values["a-root"] ?? "this checkout"} ${values.a}`);
  console.log(`B: ${values["b-root"] ?? "this checkout"} ${values.b}`);
  console.log(
    formatTable(
      ["figure", "A by slice", "B by slice", "A median", "B median", "B / A", "paired B / A"],
      [
        figure("server CPU-ms per call", (s) => s.serverCpuMs, 2),
        figure("PostgreSQL CPU-ms per call", (s) => s.postgresCpuMs, 2),
        figure("calls/s", (s) => s.callsPerSecond, 0),
        figure("server RSS (MB)", (s) => s.rssMb, 0),
        figure("failed requests", (s) => s.failures, 0),
      ],
    ),
  );
} finally {
  for (const side of sides) {
    await side.driver?.close();
    await side.service.stop();
    await side.database.dispose();
  }
}

/** DATABASE_URL with the pooler's host and port in place of the server's (the database name stays). */
function throughPooler(env: Readonly<Record<string, string>>, hostPort: string): Record<string, string> {
  const url = new URL(env.DATABASE_URL ?? "");
  url.host = hostPort;
  return { ...env, DATABASE_URL: url.toString() };
}
