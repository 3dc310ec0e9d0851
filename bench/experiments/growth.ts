import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { Pool } from "undici";
import type { Database } from "../../src/store/database.ts";
import { type CallDriver, failureLabel } from "../load/call-driver.ts";
import { createLatencyRecorder } from "../load/histogram.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createWorkload, customersOf, type Workload } from "../load/workload.ts";
import { measurePgbench } from "../phases/pgbench-anchor.ts";
import { progress } from "../phases/phase.ts";
import { type ResourceUsage, scopePostgresCpu } from "../phases/resources.ts";
import { summarizeProfiles } from "../report/profile-summary.ts";
import { profileLines } from "../report/report.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { createBenchAccount } from "../service/bench-account.ts";
import { type BenchDatabase, createBenchDatabase } from "../service/bench-database.ts";
import { serviceBlocks } from "../service/block-counters.ts";
import { type CountReader, type Counts, measureCallWindow } from "../service/call-window.ts";
import { seedCustomers } from "../service/seed.ts";
import { randomToken } from "../service/server-process.ts";
import { createService, type Service } from "../service/service.ts";
import { openStatementBlocks, type StatementBlocks } from "../service/statement-blocks.ts";

// `npm run bench:growth`: one account grown through the service's own API, on
// a freshly migrated database with the server's defaults and nothing analyzed
// by the benchmark, measured as it grows. At each size a closed loop of calls
// (80 % from callers the account holds, 20 % new, as in `npm run bench`)
// reports calls/s, the start's p99 and the database blocks touched per call
// (the service's db_blocks_touched_total: PostgreSQL's own count, on either
// engine). Blocks are counted, not timed: stable on a busy machine. The first
// measured size follows its growth at once, so the loop at 1,000 callers runs
// within a minute of the seed, on the statistics a new deployment has. Each loop
// waits first for the contact figures' job to count every call made before it,
// and after it, for the job to count the loop's own calls: their counting is
// charged to them, a growth step's backlog is not (contact-figures-settle.ts).
// Where the server loads pg_stat_statements, the service's own statements judge
// the blocks, autovacuum's reads apart (statement-blocks.ts).
//
//   npm run bench:growth -- [--sizes 1000,10000,100000] [--seconds 10] [--concurrency 16]
//     [--sql-sizes 1000000]
//
// --sql-sizes goes on past the API's sizes on PostgreSQL by seeding the rest of the callers in SQL
// (bench/service/seed.ts), which vacuums and analyzes every table: a state no deployment is in, so those rows
// say so and the ratio is judged on the API's sizes alone.
//
// Beside it, --small-accounts accounts (1,000 by default) of 10 callers each,
// also made through the API: a closed loop over them before the large account
// grows and after shows whether its growth changes their cost.
//
// DATABASE_URL names the PostgreSQL server (its autovacuum setting is printed
// with the figures); unset, the embedded database.

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    "sql-sizes": { type: "string", default: "" },
    seconds: { type: "string", default: "10" },
    concurrency: { type: "string", default: "16" },
    keys: { type: "string", default: "16" },
    "small-accounts": { type: "string", default: "1000" },
    "cpu-prof": { type: "boolean", default: false },
  },
});
const SIZES = (values.sizes ?? "").split(",").map(Number);
/** Sizes past the API's, reached by seeding the rest in SQL (PostgreSQL only): a state no deployment is in. */
const SQL_SIZES = (values["sql-sizes"] ?? "").split(",").filter(Boolean).map(Number);
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
/** The Scale tier allows 10,000 requests a minute per key: enough keys that the rate limit refuses none. */
const KEYS = Number(values.keys);
const SMALL_ACCOUNTS = Number(values["small-accounts"]);
/** Callers each small account holds. */
const SMALL_CALLERS = 10;
const BLOCKS_GROWTH_LIMIT = 1.2;
const PGBENCH_SHARE = 0.25;

interface SizePoint {
  readonly callers: number;
  /** How the account reached its size: through the API, or with the rest seeded in SQL, vacuumed and analyzed. */
  readonly seed: "api" | "sql";
  readonly callsPerSecond: number;
  readonly startP99Ms: number;
  /** Every session of the database (pg_stat_database): autovacuum's workers too. */
  readonly blocksPerCall: number;
  /** The service's statements alone (pg_stat_statements), where the server loads it. */
  readonly statementBlocksPerCall?: number;
  readonly failed: number;
  /** PostgreSQL only: blocks per call by table and index, most first. */
  readonly byRelation?: readonly [string, number][];
  /** Where pg_stat_statements is loaded: blocks per call by statement, most first. */
  readonly byStatement?: readonly [string, number][];
  /** Every session's blocks per second while the server idled just before the loop. */
  readonly idleBlocksPerSecond: number;
  /** Seconds the window stayed open after the loop for the contact figures (their idle rate taken off). */
  readonly settleSeconds: number;
  /** CPU-ms per call over the loop: the server, PostgreSQL's processes (the run's backends), this client. */
  readonly cpuMs: { readonly server?: number; readonly postgres?: number; readonly client: number };
}

/** The count that judges: the service's own statements where they can be told apart, else every session's. */
function judgedBlocks(point: { blocksPerCall: number; statementBlocksPerCall?: number }): number {
  return point.statementBlocksPerCall ?? point.blocksPerCall;
}

async function main(): Promise<void> {
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  scopePostgresCpu(stamp);
  const database = await createBenchDatabase(process.env.DATABASE_URL, stamp);
  const autovacuum = await autovacuumOf(database);
  progress(`database: ${database.kind} ${database.name}, autovacuum ${autovacuum}`);
  const pgbench = await measurePgbench(database, process.env.DATABASE_URL, {
    clients: CONCURRENCY,
    seconds: SECONDS,
    stamp,
  });
  const adminToken = randomToken();
  const service = createService({
    databaseEnv: database.env,
    adminToken,
    postgres: database.kind === "postgres",
    cpuProfiles: values["cpu-prof"] ? { dir: `${tmpdir()}/`, stem: `growth-${stamp}` } : undefined,
  });
  let relations: RelationBlocks | undefined;
  let statements: StatementBlocks | undefined;
  try {
    await service.start();
    const accountId = await createBenchAccount(service.url, adminToken, "Growth");
    const keys = await createApiKeys(service.url, adminToken, KEYS, accountId);
    const workload = createWorkload({ population: 0, runTag: stamp });
    const points: SizePoint[] = [];
    relations = database.kind === "postgres" ? await openRelationBlocks(database) : undefined;
    statements = await openStatementBlocks(database);
    progress(`blocks judged from ${statements ? "pg_stat_statements (the service's statements)" : "pg_stat_database"}`);
    const smalls = await createSmallAccounts(service.url, adminToken);
    const small: SmallPoint[] = [];
    for (const size of SIZES) {
      await grow(createRestDriver(service.url, keys, CONCURRENCY), workload, size);
      const driver = createRestDriver(service.url, keys, CONCURRENCY);
      points.push(await measure(service, driver, workload, relations, statements, keys));
      if (smalls.length > 0 && (size === SIZES[0] || size === SIZES.at(-1))) {
        small.push(await measureSmall(service, smalls, workload.grown, statements));
      }
    }
    if (SQL_SIZES.length > 0 && database.kind === "postgres") {
      const seeding = await database.open();
      try {
        for (const size of SQL_SIZES) {
          await seedInSql(seeding, workload, size, accountId);
          const driver = createRestDriver(service.url, keys, CONCURRENCY);
          points.push({ ...(await measure(service, driver, workload, relations, statements, keys)), seed: "sql" });
        }
      } finally {
        await seeding.close();
      }
    }
    const tps = "tps" in pgbench ? pgbench.tps : undefined;
    process.stdout.write(report(database, autovacuum, points, tps, small, statements !== undefined));
  } finally {
    await relations?.close();
    await statements?.close();
    await service.stop().catch(() => {});
    if (service.profiles.length > 0) {
      process.stdout.write(`\n${profileLines(await summarizeProfiles(service.profiles)).join("\n")}\n`);
    }
    await database.dispose().catch((error) => progress(`could not remove ${database.name}: ${error}`));
  }
}

interface SmallAccount {
  readonly key: string;
  /** Callers made so far; the first SMALL_CALLERS are the account's own, the rest new. */
  callers: number;
}

interface SmallPoint {
  readonly largeCallers: number;
  readonly callsPerSecond: number;
  readonly blocksPerCall: number;
  readonly statementBlocksPerCall?: number;
  readonly failed: number;
}

/** SMALL_ACCOUNTS Scale accounts with a key and SMALL_CALLERS callers each, all through the API. */
async function createSmallAccounts(baseUrl: string, adminToken: string): Promise<SmallAccount[]> {
  if (SMALL_ACCOUNTS === 0) return [];
  const began = performance.now();
  const smalls: SmallAccount[] = [];
  let next = 0;
  const pool = new Pool(baseUrl, { connections: CONCURRENCY });
  try {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < SMALL_ACCOUNTS) {
          next++;
          const accountId = await createBenchAccount(baseUrl, adminToken, "Small");
          const [key] = await createApiKeys(baseUrl, adminToken, 1, accountId);
          const account = { key: key ?? "", callers: 0 };
          smalls.push(account);
          for (let n = 0; n < SMALL_CALLERS; n++) {
            await smallCall(pool, account, smalls.length - 1, n).catch(growthFailed);
          }
          account.callers = SMALL_CALLERS;
        }
      }),
    );
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - began) / 1000;
  progress(
    `${smalls.length} small accounts of ${SMALL_CALLERS} callers each, through the API, in ${seconds.toFixed(1)} s`,
  );
  return smalls;
}

/** A start and an end from caller `n` of small account `index`: +1650 and a number of its own. */
async function smallCall(pool: Pool, account: SmallAccount, index: number, n: number): Promise<void> {
  const authorization = `Bearer ${account.key}`;
  const callId = `small-${index}-${n}-${account.callers++}`;
  const ani = `+1650${2_000_000 + index * 1000 + n}`;
  const post = async (path: string, body: object) => {
    const response = await pool.request({
      path,
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await response.body.json()) as { customer_ref?: string };
    if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}`);
    return answer;
  };
  const started = await post("/v1/calls/start", { call_id: callId, identity_hints: { ani } });
  await post("/v1/calls/end", {
    call_id: callId,
    customer_ref: started.customer_ref,
    intent: "billing_question",
    intent_status: "open",
    variables: { preferred_language: "en" },
  });
}

/** A closed loop over the small accounts: each call from a random account, 80 % from its own callers. */
async function measureSmall(
  service: Service,
  smalls: SmallAccount[],
  largeCallers: number,
  statements: StatementBlocks | undefined,
): Promise<SmallPoint> {
  const pool = new Pool(service.url, { connections: CONCURRENCY });
  let loop: ClosedLoop | undefined;
  const run = async () => {
    loop = await closedLoop(service, async () => {
      const index = Math.floor(Math.random() * smalls.length);
      const account = smalls[index]!;
      const known = Math.random() < 0.8;
      const n = known ? Math.floor(Math.random() * SMALL_CALLERS) : SMALL_CALLERS + account.callers;
      await smallCall(pool, account, index, n);
    });
    await pool.close();
  };
  const window = await measureCallWindow({
    baseUrl: service.url,
    apiKey: smalls[0]?.key ?? "",
    readers: [sessionBlocks(service), ...(statements ? [statements.read] : [])],
    run,
  });
  const { calls, failed } = loop ?? { calls: 0, failed: 0 };
  const [sessions, byStatement] = window.counts;
  const point = {
    largeCallers,
    callsPerSecond: calls / window.seconds,
    blocksPerCall: sum(sessions) / Math.max(1, calls),
    statementBlocksPerCall: byStatement ? sum(byStatement) / Math.max(1, calls) : undefined,
    failed,
  };
  progress(
    `  small accounts beside ${largeCallers} callers: ${point.callsPerSecond.toFixed(0)} calls/s, ${judgedBlocks(point).toFixed(0)} blocks per call`,
  );
  return point;
}

/** PostgreSQL's count of blocks touched by every session of the database, from the service's /metrics. */
function sessionBlocks(service: Service): CountReader {
  const read = serviceBlocks(service);
  return async () => new Map([["", await read()]]);
}

function sum(counts: Counts | undefined): number {
  return [...(counts ?? new Map<string, number>()).values()].reduce((total, value) => total + value, 0);
}

/** Counts divided by `calls`, at least half a block per call, most first. */
function perCall(counts: Counts | undefined, calls: number): [string, number][] | undefined {
  if (counts === undefined) return undefined;
  return [...counts]
    .map(([name, blocks]): [string, number] => [name, blocks / calls])
    .filter(([, blocks]) => blocks >= 0.5)
    .sort((a, b) => b[1] - a[1]);
}

/** Calls that failed while the accounts grew (refused by admission, past their budget): counted, not retried. */
let failedWhileGrowing = 0;

function growthFailed(error: unknown): void {
  const label = failureLabel(error);
  // Refused connections mean the server is gone: stop, rather than count every caller left as a failure.
  if (label === "ECONNREFUSED") throw new Error("the server refuses connections: it is gone");
  failedWhileGrowing++;
  progress(`  failed while growing: ${label}`);
}

/**
 * New callers call (a start and an end each) until the account holds `size` of them. A call that fails (on a
 * machine busy with other work, a start may be refused or miss its budget) is counted and the growth goes on:
 * that caller may then be missing, and is met later as a new one.
 */
async function grow(driver: CallDriver, workload: Workload, size: number): Promise<void> {
  const began = performance.now();
  const from = workload.grown;
  const worker = async () => {
    while (workload.grown < size) {
      const call = workload.nextGrowth();
      try {
        await driver.end(call, await driver.start(call));
      } catch (error) {
        growthFailed(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await driver.close();
  }
  const seconds = (performance.now() - began) / 1000;
  progress(`grew ${from} -> ${workload.grown} callers through the API in ${seconds.toFixed(1)} s`);
}

/**
 * Seeds the account's callers in SQL until it holds `size` (bench/service/seed.ts: they call from the seeded
 * population's numbers, which the workload then draws from, with the callers grown through the API), then
 * vacuums and analyzes every table, as the SQL seed always does: figures measured after it say so.
 */
async function seedInSql(database: Database, workload: Workload, size: number, accountId: string): Promise<void> {
  const began = performance.now();
  const target = size - workload.grown;
  const from = workload.population;
  await seedCustomers(database.db, from, target, () => {}, accountId);
  workload.population = target;
  const seconds = (performance.now() - began) / 1000;
  progress(
    `seeded ${from} -> ${target} callers in SQL (vacuumed and analyzed) in ${seconds.toFixed(1)} s: ${size} in all`,
  );
}

/** A closed loop of whole calls for SECONDS, in a window charging the calls their own work (call-window.ts). */
async function measure(
  service: Service,
  driver: CallDriver,
  workload: Workload,
  relations: RelationBlocks | undefined,
  statements: StatementBlocks | undefined,
  keys: readonly string[],
): Promise<SizePoint> {
  const callers = customersOf(workload);
  const starts = createLatencyRecorder();
  let loop: ClosedLoop | undefined;
  const run = async () => {
    loop = await closedLoop(service, async () => {
      const call = workload.next();
      const sent = performance.now();
      const ref = await driver.start(call);
      starts.record(performance.now() - sent);
      await driver.end(call, ref);
    });
    await driver.close();
  };
  const noCounts: CountReader = async () => new Map();
  const window = await measureCallWindow({
    baseUrl: service.url,
    apiKey: keys[0] ?? "",
    readers: [sessionBlocks(service), statements?.read ?? noCounts, relations?.read ?? noCounts],
    run,
  });
  const { calls, failed, usage } = loop ?? { calls: 0, failed: 0, usage: undefined };
  const [sessions, byStatement, byRelation] = window.counts;
  const each = Math.max(1, calls);
  const point: SizePoint = {
    callers,
    seed: "api",
    callsPerSecond: calls / window.seconds,
    startP99Ms: starts.summary().p99Ms,
    blocksPerCall: sum(sessions) / each,
    statementBlocksPerCall: statements ? sum(byStatement) / each : undefined,
    failed,
    byRelation: relations ? perCall(byRelation, each) : undefined,
    byStatement: statements ? perCall(byStatement, each) : undefined,
    idleBlocksPerSecond: sum(window.idlePerSecond[0]),
    settleSeconds: window.settleSeconds,
    cpuMs: cpuMsPerCall(usage, calls / window.seconds),
  };
  progress(
    `  ${callers} callers: ${point.callsPerSecond.toFixed(0)} calls/s, start p99 ${point.startP99Ms.toFixed(1)} ms, ${point.blocksPerCall.toFixed(0)} blocks per call (every session)${point.statementBlocksPerCall === undefined ? "" : `, ${point.statementBlocksPerCall.toFixed(0)} (the service's statements)`}; idle ${point.idleBlocksPerSecond.toFixed(0)} blocks/s, ${point.settleSeconds.toFixed(1)} s after the loop`,
  );
  return point;
}

interface ClosedLoop {
  readonly calls: number;
  readonly failed: number;
  /** What the loop cost the machine, from its first call to its last answer. */
  readonly usage: ResourceUsage;
}

/** CONCURRENCY workers making whole calls for SECONDS; a failed call is counted and logged, not retried. */
async function closedLoop(service: Service, call: () => Promise<void>): Promise<ClosedLoop> {
  const endUsage = service.monitor.begin();
  const until = performance.now() + SECONDS * 1000;
  let calls = 0;
  let failed = 0;
  const worker = async () => {
    while (performance.now() < until) {
      try {
        await call();
        calls++;
      } catch (error) {
        failed++;
        progress(`  failed: ${failureLabel(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { calls, failed, usage: endUsage() };
}

/** A loop's CPU (% of one core) over its calls/s, per party: (percent / 100) × 1000 ms / (calls/s). */
function cpuMsPerCall(usage: ResourceUsage | undefined, callsPerSecond: number): SizePoint["cpuMs"] {
  const per = (percent: number | undefined) =>
    percent === undefined || !(callsPerSecond > 0) ? undefined : (percent * 10) / callsPerSecond;
  return {
    server: per(usage?.serverCpuPercent),
    postgres: per(usage?.postgresCpuPercent),
    client: per(usage?.clientCpuPercent) ?? 0,
  };
}

/** Each table's and index's blocks touched so far (pg_statio_user_tables and _indexes), read from this process. */
interface RelationBlocks {
  read(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

async function openRelationBlocks(database: BenchDatabase): Promise<RelationBlocks> {
  const opened = await database.open();
  return {
    async read() {
      const { rows } = await sql<{ name: string; blocks: string }>`
        select relname as name, (coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0))::text as blocks
        from pg_statio_user_tables
        union all
        select indexrelname, (idx_blks_read + idx_blks_hit)::text from pg_statio_user_indexes`.execute(opened.db);
      return new Map(rows.map((row) => [row.name, Number(row.blocks)]));
    },
    close: () => opened.close(),
  };
}

async function autovacuumOf(database: BenchDatabase): Promise<string> {
  if (database.kind === "pglite") return "none (the embedded database has no autovacuum)";
  const opened = await database.open();
  try {
    const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(opened.db);
    return rows[0]?.autovacuum ?? "unknown";
  } finally {
    await opened.close();
  }
}

function cpuCell(cpu: SizePoint["cpuMs"]): string {
  return [cpu.server, cpu.postgres, cpu.client].map((ms) => (ms === undefined ? "–" : ms.toFixed(2))).join(" / ");
}

function report(
  database: BenchDatabase,
  autovacuum: string,
  points: SizePoint[],
  tps: number | undefined,
  small: readonly SmallPoint[],
  byStatement: boolean,
): string {
  const statementCell = (p: { statementBlocksPerCall?: number }) =>
    byStatement ? ` ${p.statementBlocksPerCall?.toFixed(1) ?? "–"} |` : "";
  const lines = [
    "",
    `Growth through the API: ${database.kind}, autovacuum ${autovacuum}; seeded through the service, nothing analyzed by the benchmark`,
    `closed loop of ${CONCURRENCY} callers over REST, ${SECONDS} s per size; a call is a start and an end`,
    byStatement
      ? "blocks judged: the service's statements (pg_stat_statements); every session's (pg_stat_database, autovacuum included) beside"
      : "blocks judged: every session of the database (pg_stat_database)",
    "",
    "each loop charged its own calls' counting into the contact figures, not a growth step's backlog; the idle",
    "server's blocks per second (measured just before it) taken off for the seconds the window waited after it",
    "",
    `| callers | calls/s | start p99 ms | blocks per call (every session) |${byStatement ? " blocks per call (statements) |" : ""} idle blocks/s | waited after, s | failed | CPU-ms per call: server / PostgreSQL / client |`,
    `|---|---|---|---|${byStatement ? "---|" : ""}---|---|---|---|`,
    ...points.map(
      (p) =>
        `| ${p.callers}${p.seed === "sql" ? " (SQL seed, vacuumed and analyzed: not judged)" : ""} | ${p.callsPerSecond.toFixed(0)} | ${p.startP99Ms.toFixed(1)} | ${p.blocksPerCall.toFixed(1)} |${statementCell(p)} ${p.idleBlocksPerSecond.toFixed(0)} | ${p.settleSeconds.toFixed(1)} | ${p.failed} | ${cpuCell(p.cpuMs)} |`,
    ),
    "",
  ];
  lines.push(
    ...perCallTable(
      "blocks per call by statement (pg_stat_statements; foreign-key checks and triggers inside their statement):",
      "statement",
      points,
      (p) => p.byStatement,
      (text) => `\`${text.replaceAll("|", "\\|")}\``,
    ),
    ...perCallTable(
      "blocks per call by table and index (pg_statio_user_tables, _indexes):",
      "relation",
      points,
      (p) => p.byRelation,
      (name) => name,
    ),
  );
  const first = points[0];
  const last = points.filter((p) => p.seed === "api").at(-1);
  if (first !== undefined && last !== undefined && last !== first) {
    const ratio = judgedBlocks(last) / judgedBlocks(first);
    const met = ratio <= BLOCKS_GROWTH_LIMIT;
    lines.push(
      `blocks per call at ${last.callers} callers <= ${BLOCKS_GROWTH_LIMIT} x at ${first.callers}: ${ratio.toFixed(2)} x ${met ? "MET" : "NOT MET"}`,
    );
    if (byStatement) {
      lines.push(
        `  (every session's blocks, autovacuum's included, not judged: ${(last.blocksPerCall / first.blocksPerCall).toFixed(2)} x)`,
      );
    }
  }
  if (first !== undefined && tps !== undefined) {
    const share = first.callsPerSecond / tps;
    lines.push(
      `closed loop at ${first.callers} callers (right after the seed) >= ${PGBENCH_SHARE} x pgbench (${tps.toFixed(0)} tps): ${share.toFixed(3)} x ${share >= PGBENCH_SHARE ? "MET" : "NOT MET"}`,
    );
  }
  const [smallBefore, smallAfter] = [small[0], small.at(-1)];
  if (smallBefore !== undefined && smallAfter !== undefined && smallAfter !== smallBefore) {
    const ratio = judgedBlocks(smallAfter) / judgedBlocks(smallBefore);
    lines.push(
      `${SMALL_ACCOUNTS} small accounts' blocks per call beside ${smallAfter.largeCallers} callers <= ${BLOCKS_GROWTH_LIMIT} x beside ${smallBefore.largeCallers} (${judgedBlocks(smallBefore).toFixed(1)} -> ${judgedBlocks(smallAfter).toFixed(1)}, ${smallBefore.callsPerSecond.toFixed(0)} -> ${smallAfter.callsPerSecond.toFixed(0)} calls/s): ${ratio.toFixed(2)} x ${ratio <= BLOCKS_GROWTH_LIMIT ? "MET" : "NOT MET"}`,
    );
  }
  const failed = points.reduce((n, p) => n + p.failed, 0) + small.reduce((n, p) => n + p.failed, 0);
  lines.push(
    `failed calls in the measured loops: ${failed} ${failed === 0 ? "MET" : "NOT MET"}`,
    `failed calls while growing (not measured, counted): ${failedWhileGrowing}`,
    "",
  );
  return lines.join("\n");
}

/** One row per name any point has, one column per size; empty when no point has any. */
function perCallTable(
  title: string,
  heading: string,
  points: readonly SizePoint[],
  countsOf: (point: SizePoint) => readonly [string, number][] | undefined,
  cellOf: (name: string) => string,
): string[] {
  const names = [...new Set(points.flatMap((p) => (countsOf(p) ?? []).map(([name]) => name)))];
  if (names.length === 0) return [];
  return [
    title,
    "",
    `| ${heading} | ${points.map((p) => p.callers).join(" | ")} |`,
    `|---|${points.map(() => "---").join("|")}|`,
    ...names.map((name) => {
      const cells = points.map((p) => (countsOf(p)?.find(([n]) => n === name)?.[1] ?? 0).toFixed(1));
      return `| ${cellOf(name)} | ${cells.join(" | ")} |`;
    }),
    "",
  ];
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
