import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { envToConfig } from "../../src/config.ts";
import { createDatabase } from "../../src/store/database.ts";
import type { CallDriver } from "../load/call-driver.ts";
import { createGrpcDriver } from "../load/grpc-load.ts";
import { createRestDriver } from "../load/rest-load.ts";
import { createStoreDriver } from "../load/store-load.ts";
import { createWorkload, type Workload } from "../load/workload.ts";
import { progress } from "../phases/phase.ts";
import { rssMb } from "../phases/resources.ts";
import { summarizeProfiles } from "../report/profile-summary.ts";
import { createApiKeys } from "../service/api-keys.ts";
import { type BenchDatabase, createBenchDatabase } from "../service/bench-database.ts";
import { seedPopulation } from "../service/seed.ts";
import { randomToken, startServiceProcess } from "../service/server-process.ts";

// `npm run bench:cost`: what one call (a start and its end) costs, in figures
// that do not depend on how busy the machine is: statements, transactions,
// WAL written for this database (read back with pg_walinspect, so other
// databases on the server do not count), rows and index entries written. Then
// the same calls through the real service, for its CPU-ms per call and memory.

const USAGE = `Usage: npm run bench:cost -- [--calls N] [--customers N] [--concurrency C] [--service-calls N] [--cpu-prof]

  --calls N          calls measured through the store functions (default 2000)
  --customers N      callers seeded first (default 10000)
  --concurrency C    calls in flight (default 8)
  --service-calls N  calls measured through the real service, half REST, half gRPC (default 4000; 0: none)
  --cpu-prof         profile the server and list its hottest functions and packages

Needs DATABASE_URL (a PostgreSQL server, superuser): a fresh database is created and dropped.`;

interface Snapshot {
  readonly lsn: string;
  readonly checkpoints: number;
  readonly xacts: number;
  readonly tables: Map<string, TableCounts>;
}

interface TableCounts {
  readonly inserted: number;
  readonly updated: number;
  readonly hot: number;
  readonly deleted: number;
  /** B-tree indexes: each takes an entry for every row version that is not a HOT update. */
  readonly indexes: number;
}

interface WalFigures {
  readonly records: number;
  readonly bytes: number;
  readonly fpiBytes: number;
  readonly fpis: number;
  readonly blocks: number;
  /** Bytes without full-page images by the relation of a record's first block ("-": commits). */
  readonly byRelation: Map<string, number>;
  /** Bytes without full-page images by resource manager and record type. */
  readonly byKind: Map<string, number>;
}

export interface CallCost {
  readonly calls: number;
  readonly statements: number | undefined;
  readonly transactions: number;
  readonly wal: WalFigures;
  /** Checkpoints on the server during the run (anyone's): each makes the next change of every page write it whole. */
  readonly checkpoints: number;
  readonly tables: Map<string, TableCounts>;
}

/** Counters of this database only; read from a connection of its own, after the measured pool has closed. */
async function snapshot(client: pg.Client): Promise<Snapshot> {
  // Each backend flushes its statistics when it exits; give the last one a moment.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await client.query("select pg_stat_clear_snapshot()");
  const { rows: lsn } = await client.query(
    "select pg_current_wal_insert_lsn()::text as lsn, checkpoints_timed + checkpoints_req as checkpoints from pg_stat_bgwriter",
  );
  const { rows: db } = await client.query(
    "select xact_commit + xact_rollback as xacts from pg_stat_database where datname = current_database()",
  );
  const { rows } = await client.query(`
    select t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del,
      (select count(*) from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
        where i.indrelid = t.relid and a.amname = 'btree') as indexes
    from pg_stat_user_tables t`);
  const tables = new Map<string, TableCounts>();
  for (const row of rows) {
    tables.set(row.relname, {
      inserted: Number(row.n_tup_ins),
      updated: Number(row.n_tup_upd),
      hot: Number(row.n_tup_hot_upd),
      deleted: Number(row.n_tup_del),
      indexes: Number(row.indexes),
    });
  }
  return { lsn: lsn[0].lsn, checkpoints: Number(lsn[0].checkpoints), xacts: Number(db[0].xacts), tables };
}

/** The WAL between two positions that belongs to this database: its blocks, and the commits of its transactions. */
async function walOfDatabase(client: pg.Client, from: string, to: string): Promise<WalFigures> {
  // Every commit of ours was flushed before it was acknowledged: the range ends at the flushed WAL at most.
  const { rows } = await client.query(
    `with records as (
       select xid, resource_manager || '/' || split_part(record_type, ' ', 1) as kind, record_length, fpi_length,
         coalesce(block_ref, '') as block_ref
       from pg_get_wal_records_info($1::pg_lsn, least($2::pg_lsn, pg_current_wal_flush_lsn()))
     ),
     ours as (
       select * from records
       where block_ref like '%rel ' || (select dattablespace from pg_database where datname = current_database())
         || '/' || (select oid from pg_database where datname = current_database()) || '/%'
     ),
     counted as (
       select * from ours
       union all
       select * from records where block_ref = '' and xid <> '0' and xid in (select xid from ours)
     )
     select coalesce(pg_filenode_relation(0, substring(block_ref from 'rel \\d+/\\d+/(\\d+)')::oid)::text, '-') as relation,
       kind, count(*)::int as records, sum(record_length)::bigint as bytes, sum(fpi_length)::bigint as fpi_bytes,
       count(*) filter (where fpi_length > 0)::int as fpis,
       sum((select count(*) from regexp_matches(block_ref, 'blkref #', 'g')))::int as blocks
     from counted group by 1, 2`,
    [from, to],
  );
  const total = { records: 0, bytes: 0, fpiBytes: 0, fpis: 0, blocks: 0 };
  const byRelation = new Map<string, number>();
  const byKind = new Map<string, number>();
  for (const row of rows) {
    total.records += row.records;
    total.bytes += Number(row.bytes);
    total.fpiBytes += Number(row.fpi_bytes);
    total.fpis += row.fpis;
    total.blocks += row.blocks;
    const withoutImages = Number(row.bytes) - Number(row.fpi_bytes);
    byRelation.set(row.relation, (byRelation.get(row.relation) ?? 0) + withoutImages);
    byKind.set(row.kind, (byKind.get(row.kind) ?? 0) + withoutImages);
  }
  return { ...total, byRelation, byKind };
}

function tableDelta(before: Map<string, TableCounts>, after: Map<string, TableCounts>): Map<string, TableCounts> {
  const delta = new Map<string, TableCounts>();
  for (const [name, a] of after) {
    const b = before.get(name) ?? { inserted: 0, updated: 0, hot: 0, deleted: 0, indexes: a.indexes };
    const d = {
      inserted: a.inserted - b.inserted,
      updated: a.updated - b.updated,
      hot: a.hot - b.hot,
      deleted: a.deleted - b.deleted,
      indexes: a.indexes,
    };
    if (d.inserted + d.updated + d.deleted > 0) delta.set(name, d);
  }
  return delta;
}

/** Runs `calls` calls of the workload, `concurrency` at a time. */
async function runCalls(driver: CallDriver, workload: Workload, calls: number, concurrency: number): Promise<number> {
  let left = calls;
  let failed = 0;
  const worker = async () => {
    while (left > 0) {
      left--;
      const call = workload.next();
      try {
        await driver.end(call, await driver.start(call));
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failed;
}

async function measure(
  admin: pg.Client,
  calls: number,
  run: () => Promise<{ statements?: number }>,
  ownXacts: number,
): Promise<CallCost> {
  await admin.query("checkpoint");
  const before = await snapshot(admin);
  const { statements } = await run();
  const after = await snapshot(admin);
  return {
    calls,
    statements,
    // The snapshots' own statements run on this database too.
    transactions: after.xacts - before.xacts - ownXacts,
    wal: await walOfDatabase(admin, before.lsn, after.lsn),
    checkpoints: after.checkpoints - before.checkpoints,
    tables: tableDelta(before.tables, after.tables),
  };
}

/** Through the store functions, as the DB ceiling calls them; statements counted by Kysely's log hook. */
async function storeCost(database: BenchDatabase, admin: pg.Client, workload: Workload, options: Options) {
  // Some calls first, on connections that then close: a backend flushes its statistics when it exits.
  const warm = await database.open();
  await runCalls(createStoreDriver(warm), workload, options.concurrency * 20, options.concurrency);
  await warm.close();
  let statements = 0;
  const opened = await createDatabase(envToConfig({ ...database.env, LOG_LEVEL: "silent" }), {
    onQuery: () => void statements++,
  });
  let closed = false;
  try {
    return await measure(
      admin,
      options.calls,
      async () => {
        const failed = await runCalls(createStoreDriver(opened), workload, options.calls, options.concurrency);
        if (failed > 0) progress(`${failed} store calls failed`);
        await opened.close();
        closed = true;
        return { statements };
      },
      SNAPSHOT_XACTS,
    );
  } finally {
    if (!closed) await opened.close();
  }
}

/** Through the real service (its own process, as `npm start` runs it): CPU-ms per call and memory. */
async function serviceCost(database: BenchDatabase, admin: pg.Client, workload: Workload, options: Options) {
  const adminToken = randomToken();
  const profile = options.cpuProf ? { dir: tmpdir(), name: `cost-per-call-${process.pid}.cpuprofile` } : undefined;
  const server = await startServiceProcess({ databaseEnv: database.env, adminToken, cpuProfile: profile });
  try {
    const keys = await createApiKeys(server.url, adminToken, 30);
    const drivers = [createRestDriver(server.url, keys, options.concurrency), createGrpcDriver(server.url, keys)];
    for (const driver of drivers) await runCalls(driver, workload, options.concurrency * 20, options.concurrency);
    let cpuMs = 0;
    let peakRss = 0;
    const memory: Record<string, number>[] = [];
    const cost = await measure(
      admin,
      options.serviceCalls,
      async () => {
        const sampler = setInterval(() => {
          peakRss = Math.max(peakRss, rssMb(server.pid) ?? 0);
          void scrapeMemory(server.metricsUrl ?? server.url).then((m) => m && memory.push(m));
        }, 500);
        const cpuBefore = cpuTicks(server.pid);
        for (const driver of drivers) {
          const failed = await runCalls(driver, workload, options.serviceCalls / drivers.length, options.concurrency);
          if (failed > 0) progress(`${failed} ${driver.name} calls failed`);
        }
        cpuMs = ((cpuTicks(server.pid) - cpuBefore) * 1000) / CLOCK_TICKS;
        clearInterval(sampler);
        for (const driver of drivers) await driver.close();
        return {};
      },
      SNAPSHOT_XACTS,
    );
    await server.stop();
    const hottest = profile && (await summarizeProfiles([join(profile.dir, profile.name)], 25));
    return { cost, cpuMsPerCall: cpuMs / options.serviceCalls, peakRss, memory: peakOf(memory), hottest };
  } finally {
    await server.stop();
  }
}

/** The transactions two snapshots and the WAL query add to the database's counter. */
const SNAPSHOT_XACTS = 4;
/** USER_HZ: /proc/<pid>/stat counts CPU time in these ticks per second on Linux. */
const CLOCK_TICKS = 100;

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

const MEMORY_METRICS = {
  process_resident_memory_bytes: "rss",
  nodejs_heap_size_used_bytes: "heapUsed",
  nodejs_heap_size_total_bytes: "heapTotal",
  nodejs_external_memory_bytes: "external",
};

/** The server's own memory figures, from its Prometheus endpoint (prom-client's default metrics). */
async function scrapeMemory(url: string): Promise<Record<string, number> | undefined> {
  try {
    const text = await (await fetch(new URL("/metrics", url))).text();
    const figures: Record<string, number> = {};
    for (const [metric, name] of Object.entries(MEMORY_METRICS)) {
      const match = new RegExp(`^${metric} (\\S+)`, "m").exec(text);
      if (match) figures[name] = Number(match[1]) / 1_048_576;
    }
    return figures;
  } catch {
    return undefined;
  }
}

function peakOf(samples: Record<string, number>[]): Record<string, number> {
  const at = samples.reduce((best, s) => ((s.rss ?? 0) > (best.rss ?? 0) ? s : best), {} as Record<string, number>);
  return at;
}

export function formatCost(title: string, cost: CallCost): string {
  const per = (n: number) => (n / cost.calls).toFixed(2);
  const lines = [
    `${title}: ${cost.calls} calls`,
    `  statements (round trips) per call   ${cost.statements === undefined ? "n/a" : per(cost.statements)}`,
    `  transactions per call               ${per(cost.transactions)}`,
    `  WAL bytes per call                  ${per(cost.wal.bytes)}`,
    `    without full-page images          ${per(cost.wal.bytes - cost.wal.fpiBytes)}`,
    `    full-page images per call         ${per(cost.wal.fpis)} (${per(cost.wal.fpiBytes)} bytes; first change of a page after a checkpoint: ${cost.checkpoints} during the run besides the one before it)`,
    `  WAL records per call                ${per(cost.wal.records)}`,
    `  pages changed (WAL block refs)/call ${per(cost.wal.blocks)}`,
  ];
  let entries = 0;
  lines.push("  table                  ins/call  upd/call  hot/call  del/call  b-trees  index entries/call");
  for (const [name, t] of [...cost.tables].sort()) {
    const indexEntries = (t.inserted + t.updated - t.hot) * t.indexes;
    entries += indexEntries;
    lines.push(
      `  ${name.padEnd(22)} ${per(t.inserted).padStart(8)}  ${per(t.updated).padStart(8)}  ${per(t.hot).padStart(8)}  ${per(t.deleted).padStart(8)}  ${String(t.indexes).padStart(7)}  ${per(indexEntries).padStart(18)}`,
    );
  }
  lines.push(`  index entries inserted per call     ${per(entries)}`);
  lines.push(`  WAL bytes (without images) per call by relation: ${largest(cost.wal.byRelation, per)}`);
  lines.push(`  WAL bytes (without images) per call by record: ${largest(cost.wal.byKind, per)}`);
  return lines.join("\n");
}

function largest(figures: Map<string, number>, per: (n: number) => string): string {
  return [...figures]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([name, bytes]) => `${name} ${per(bytes)}`)
    .join(", ");
}

interface Options {
  readonly calls: number;
  readonly customers: number;
  readonly concurrency: number;
  readonly serviceCalls: number;
  readonly cpuProf: boolean;
}

async function pgStatStatementsLoadable(admin: pg.Client): Promise<string> {
  const { rows } = await admin.query("select current_setting('shared_preload_libraries') as libs");
  return String(rows[0].libs).includes("pg_stat_statements")
    ? "pg_stat_statements: loaded"
    : "pg_stat_statements: not in shared_preload_libraries (needs a server restart): buffers dirtied not measured";
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      calls: { type: "string", default: "2000" },
      customers: { type: "string", default: "10000" },
      concurrency: { type: "string", default: "8" },
      "service-calls": { type: "string", default: "4000" },
      "cpu-prof": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  const url = process.env.DATABASE_URL;
  if (values.help || url === undefined || url === "") return void process.stdout.write(`${USAGE}\n`);
  const options: Options = {
    calls: Number(values.calls),
    customers: Number(values.customers),
    concurrency: Number(values.concurrency),
    serviceCalls: Number(values["service-calls"]),
    cpuProf: values["cpu-prof"],
  };
  const stamp = `cost_${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}`;
  const database = await createBenchDatabase(url, stamp);
  const admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
  try {
    await seedPopulation(database, 0, options.customers);
    await admin.connect();
    await admin.query("create extension if not exists pg_walinspect");
    // A temporary slot (gone with this connection) keeps the server from recycling the WAL before it is read.
    await admin.query("select pg_create_physical_replication_slot($1, true, true)", [stamp]);
    const workload = createWorkload({ population: options.customers, runTag: stamp });
    const report = [await pgStatStatementsLoadable(admin)];
    report.push(
      formatCost("store functions (the DB ceiling's path)", await storeCost(database, admin, workload, options)),
    );
    if (options.serviceCalls > 0) {
      const service = await serviceCost(database, admin, workload, options);
      const lines = [formatCost("the service (REST and gRPC, half each)", service.cost)];
      lines.push(`  server CPU-ms per call              ${service.cpuMsPerCall.toFixed(3)}`);
      lines.push(`  server peak RSS (MB)                ${service.peakRss.toFixed(0)}`);
      lines.push(
        `  at the RSS peak (MB): ${Object.entries(service.memory)
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(", ")}`,
      );
      for (const entry of [...(service.hottest?.topFunctions ?? []), ...(service.hottest?.topModules ?? [])]) {
        lines.push(`  cpu ${entry.percent.toFixed(1).padStart(5)} %  ${entry.name}`);
      }
      report.push(lines.join("\n"));
    }
    process.stdout.write(`${report.join("\n\n")}\n`);
  } finally {
    await admin.end().catch(() => {});
    await database.dispose();
  }
}

if (import.meta.main) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
