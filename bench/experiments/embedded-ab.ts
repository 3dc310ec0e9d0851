import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { envToConfig } from "../../src/config.ts";
import { migrateToLatest } from "../../src/database/migrate.ts";
import { createDatabase, type Database } from "../../src/store/database.ts";
import type { CallDriver } from "../load/call-driver.ts";
import { runClosedLoop } from "../load/closed-loop.ts";
import { createStoreDriver } from "../load/store-load.ts";
import { createWorkload, type Workload } from "../load/workload.ts";
import { progress } from "../phases/phase.ts";
import { seedAccount, seedCustomers } from "../service/seed.ts";

// `npm run bench:embedded-ab`: a same-run A/B on the embedded database. Two
// data directories, seeded alike, each opened with one variant; the DB
// ceiling's store calls run on them in turn, round after round, in this one
// process, and each round reports the process's CPU per call (the database's
// thread included) and calls/s. Variant A is the default.

const USAGE = `Usage: npm run bench:embedded-ab -- [--compare prepare|charge|plans] [--customers N] [--rounds R] [--seconds S]
  [--concurrency C] [--thread worker|main]

  --compare X      prepare (default): A, each statement prepared once, against B, each parsed and planned afresh;
                   charge: A, calls billed (the credit-slot charge), against B, the charge left out;
                   plans: A, one generic plan kept per prepared statement, against B, the plan cache left to choose
  --customers N    callers seeded in each database (default 10000)
  --rounds R       rounds; each runs A then B, or B then A, in turn (default 4)
  --seconds S      length of one variant's turn in a round (default 10)
  --concurrency C  calls in flight (default 4)
  --thread T       where PGlite runs, as EMBEDDED_DB_THREAD (default worker)`;

interface Variant {
  readonly label: string;
  readonly prepareStatements: boolean;
  readonly genericPlans: boolean;
  readonly charged: boolean;
}

const COMPARISONS: Readonly<Record<string, readonly Variant[]>> = {
  prepare: [
    { label: "A prepared once", prepareStatements: true, genericPlans: true, charged: true },
    { label: "B planned afresh", prepareStatements: false, genericPlans: true, charged: true },
  ],
  charge: [
    { label: "A charged", prepareStatements: true, genericPlans: true, charged: true },
    { label: "B not charged", prepareStatements: true, genericPlans: true, charged: false },
  ],
  plans: [
    { label: "A generic plans", prepareStatements: true, genericPlans: true, charged: true },
    { label: "B plan cache's choice", prepareStatements: true, genericPlans: false, charged: true },
  ],
};

interface Opened {
  readonly variant: Variant;
  readonly dir: string;
  readonly database: Database;
  readonly workload: Workload;
}

async function open(variant: Variant, options: Options, index: number): Promise<Opened> {
  const dir = await mkdtemp(join(tmpdir(), "cc-embedded-ab-"));
  const config = envToConfig({ DATA_DIR: dir, EMBEDDED_DB_THREAD: options.thread, LOG_LEVEL: "silent" });
  const database = await createDatabase(config, {
    prepareStatements: variant.prepareStatements,
    genericPlans: variant.genericPlans,
  });
  await migrateToLatest(database.db);
  await seedAccount(database.db, new Date());
  await seedCustomers(database.db, 0, options.customers);
  progress(`${variant.label}: seeded ${options.customers} callers in ${dir}`);
  // The same calls, in the same order, on both databases.
  const workload = createWorkload({ population: options.customers, runTag: `ab${index}` });
  return { variant, dir, database, workload };
}

async function turn(opened: Opened, seconds: number, concurrency: number) {
  const store = createStoreDriver(opened.database, { charged: opened.variant.charged });
  // Every call that ended is counted for the CPU, also those that ended after the turn's last second.
  let ended = 0;
  const driver: CallDriver = { ...store, end: (call, ref) => store.end(call, ref).then(() => void ended++) };
  const cpuBefore = process.cpuUsage();
  const loop = await runClosedLoop(driver, opened.workload, {
    concurrency,
    durationSeconds: seconds,
    warmupSeconds: 0,
  });
  const cpu = process.cpuUsage(cpuBefore);
  const failures = { ...loop.start.errorExamples, ...loop.end.errorExamples };
  const cpuMsPerCall = (cpu.user + cpu.system) / 1000 / Math.max(1, ended);
  return { cpuMsPerCall, callsPerSecond: loop.callsPerSecond, failed: loop.start.errors + loop.end.errors, failures };
}

interface Options {
  readonly variants: readonly Variant[];
  readonly customers: number;
  readonly rounds: number;
  readonly seconds: number;
  readonly concurrency: number;
  readonly thread: "worker" | "main";
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      compare: { type: "string", default: "prepare" },
      customers: { type: "string", default: "10000" },
      rounds: { type: "string", default: "4" },
      seconds: { type: "string", default: "10" },
      concurrency: { type: "string", default: "4" },
      thread: { type: "string", default: "worker" },
      help: { type: "boolean", default: false },
    },
  });
  const variants = COMPARISONS[values.compare];
  if (values.help || variants === undefined || (values.thread !== "worker" && values.thread !== "main"))
    return void process.stdout.write(`${USAGE}\n`);
  const options: Options = {
    variants,
    customers: Number(values.customers),
    rounds: Number(values.rounds),
    seconds: Number(values.seconds),
    concurrency: Number(values.concurrency),
    thread: values.thread,
  };
  const opened: Opened[] = [];
  try {
    for (const [index, variant] of options.variants.entries()) opened.push(await open(variant, options, index));
    // A short turn each first: the first calls of a database read its pages from disk and prepare the statements.
    for (const each of opened) await turn(each, 2, options.concurrency);
    const results = new Map<Opened, { cpu: number[]; rate: number[] }>(
      opened.map((each) => [each, { cpu: [], rate: [] }]),
    );
    process.stdout.write("round  variant            CPU ms/call  calls/s  failed\n");
    for (let round = 1; round <= options.rounds; round++) {
      const order = round % 2 === 1 ? opened : [...opened].reverse();
      for (const each of order) {
        const result = await turn(each, options.seconds, options.concurrency);
        results.get(each)?.cpu.push(result.cpuMsPerCall);
        results.get(each)?.rate.push(result.callsPerSecond);
        process.stdout.write(
          `${String(round).padEnd(7)}${each.variant.label.padEnd(19)}${result.cpuMsPerCall.toFixed(2).padStart(11)}` +
            `${result.callsPerSecond.toFixed(1).padStart(9)}${String(result.failed).padStart(8)}\n`,
        );
        for (const [kind, message] of Object.entries(result.failures)) progress(`failure ${kind}: ${message}`);
      }
    }
    for (const [each, { cpu, rate }] of results) {
      process.stdout.write(`${each.variant.label}: CPU ms/call ${spread(cpu, 2)}, calls/s ${spread(rate, 1)}\n`);
    }
  } finally {
    for (const each of opened) {
      await each.database.close();
      await rm(each.dir, { recursive: true, force: true });
    }
  }
}

/** "12.1–14.0 (mean 13.2)" */
function spread(values: readonly number[], digits: number): string {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const format = (value: number) => value.toFixed(digits);
  return `${format(Math.min(...values))}–${format(Math.max(...values))} (mean ${format(mean)})`;
}

await main();
