import pg from "pg";
import { runOpenLoop } from "../load/open-loop.ts";
import { createRestPerRequestDriver } from "../load/rest-load.ts";
import { progress } from "../phases/phase.ts";
import { scopePostgresCpu } from "../phases/resources.ts";
import { startSeededService } from "./seeded-service.ts";

// `node bench/experiments/drift.ts [calls/s] [slices] [seconds]`: one steady
// open loop (REST, a new connection per request) cut into slices, and for each
// its PostgreSQL CPU per call, the machine's CPU, the dead row versions the run
// has left, and what the run's backends were doing (pg_stat_activity read 20
// times a second: the statements seen active, most first). Does the database's
// cost per call drift as a run goes on, and if so, in which statements? Needs
// DATABASE_URL.

const rate = Number(process.argv[2] ?? 300);
const slices = Number(process.argv[3] ?? 8);
const seconds = Number(process.argv[4] ?? 20);

const { service, keys, workload, stamp, databaseEnv, close } = await startSeededService(10_000, 10);
scopePostgresCpu(stamp);
progress(`observing cc_bench_${stamp}`);
const observer = new pg.Client({ connectionString: databaseEnv.DATABASE_URL });
await observer.connect();
try {
  const driver = createRestPerRequestDriver(service.url, keys);
  try {
    await runOpenLoop(driver, workload, { callsPerSecond: rate, durationSeconds: 5 });
    for (let slice = 0; slice < slices; slice++) {
      const seen = new Map<string, number>();
      let samples = 0;
      const sampling = setInterval(() => {
        void observer
          .query<{ query: string; wait: string | null }>(
            `select left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query, wait_event_type || ':' || wait_event as wait
             from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`,
          )
          .then(({ rows }) => {
            samples++;
            for (const row of rows) {
              const key = `${row.wait ?? "cpu"}  ${row.query}`;
              seen.set(key, (seen.get(key) ?? 0) + 1);
            }
          });
      }, 50);
      const tablesBefore = await tableReads(observer);
      const end = service.monitor.begin();
      const loop = await runOpenLoop(driver, workload, { callsPerSecond: rate, durationSeconds: seconds });
      const usage = end();
      clearInterval(sampling);
      const calls = loop.callsCompleted;
      const { rows } = await observer.query<{ dead: string; live: string }>(
        "select sum(n_dead_tup)::bigint as dead, sum(n_live_tup)::bigint as live from pg_stat_user_tables",
      );
      const pgMs = (((usage.postgresCpuPercent ?? 0) / 100) * seconds * 1000) / calls;
      const serverMs = (((usage.serverCpuPercent ?? 0) / 100) * seconds * 1000) / calls;
      process.stdout.write(
        `slice ${slice}: ${loop.callsPerSecond.toFixed(1)} calls/s, PostgreSQL ${pgMs.toFixed(2)} ms/call, ` +
          `server ${serverMs.toFixed(2)} ms/call, machine ${usage.machineCpuPercent.toFixed(0)} %, ` +
          `start p99 ${loop.start.latency.p99Ms.toFixed(1)} ms, rows live ${rows[0].live} dead ${rows[0].dead}\n`,
      );
      const tablesAfter = await tableReads(observer);
      const perCall = [...tablesAfter]
        .map(([table, after]) => {
          const before = tablesBefore.get(table) ?? after.map(() => 0);
          return [table, after.map((n, i) => (n - before[i]) / calls)] as const;
        })
        .filter(([, d]) => d.some((n) => n >= 0.05));
      for (const [table, d] of perCall) {
        process.stdout.write(
          `   ${table}: per call heap blocks ${d[0].toFixed(1)}, index blocks ${d[1].toFixed(1)}, seq scans ${d[2].toFixed(2)} reading ${d[3].toFixed(0)} rows, index fetches ${d[4].toFixed(1)}\n`,
        );
      }
      const top = [...seen].sort((a, b) => b[1] - a[1]).slice(0, 8);
      for (const [key, n] of top) process.stdout.write(`   ${(n / samples).toFixed(3)}  ${key}\n`);
    }
  } finally {
    await driver.close();
  }
} finally {
  await observer.end();
  await close();
}

/** Per table: heap blocks read or hit, index blocks read or hit, seq scans, rows they read, rows fetched by index. */
async function tableReads(client: pg.Client): Promise<Map<string, number[]>> {
  const { rows } = await client.query<{
    relname: string;
    heap: string;
    idx: string;
    seq: string;
    seqrows: string;
    fetched: string;
  }>(
    `select io.relname, io.heap_blks_hit + io.heap_blks_read as heap,
            coalesce(io.idx_blks_hit, 0) + coalesce(io.idx_blks_read, 0) as idx,
            t.seq_scan as seq, t.seq_tup_read as seqrows, coalesce(t.idx_tup_fetch, 0) as fetched
     from pg_statio_user_tables io join pg_stat_user_tables t using (relid)`,
  );
  return new Map(rows.map((r) => [r.relname, [r.heap, r.idx, r.seq, r.seqrows, r.fetched].map(Number)]));
}
