import pg from "pg";
import type { LockWaitSummary } from "../report/results.ts";

// What the benchmark database's backends wait for, sampled while a phase
// runs: the evidence whether calls queue on a row lock (one account's quota
// row) or on something else. A row-lock queue shows as wait_event_type Lock:
// `transactionid` (waiting for the row's holder to end) and `tuple` (waiting
// behind another waiter), named with the row's table when it can be told.

export interface LockWaitSampler {
  stop(): Promise<LockWaitSummary>;
}

// pg_locks is read once per sample (materialised), so a waiter and the locks
// around it come from the same instant; pg_stat_activity gives the rest. A
// backend waiting for a transaction often holds no tuple lock itself (it woke
// once and queues again for the row's next version): its table is then that
// of a tuple lock held by another backend waiting for the same transaction.
const SAMPLE_SQL = `
  with locks as materialized (select pid, locktype, relation, transactionid, granted from pg_locks),
       backends as materialized (
         select pid, state, wait_event_type, wait_event from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'),
       tuples as (select pid, min(relation::regclass::text) as tbl from locks where locktype = 'tuple' group by pid),
       xact_tables as (
         select w.transactionid, min(t.tbl) as tbl from locks w join tuples t on t.pid = w.pid
          where w.locktype = 'transactionid' and not w.granted group by w.transactionid)
  select b.state, b.wait_event_type, b.wait_event, w.locktype as waiting_for,
         coalesce(t.tbl, x.tbl) as tuple_table
    from backends b
    left join locks w on w.pid = b.pid and not w.granted
    left join tuples t on t.pid = b.pid
    left join xact_tables x on x.transactionid = w.transactionid`;

interface Row {
  state: string | null;
  wait_event_type: string | null;
  wait_event: string | null;
  /** The lock type this backend waits for in pg_locks, if any. */
  waiting_for: string | null;
  tuple_table: string | null;
}

export async function startLockWaitSampler(databaseUrl: string, intervalMs = 100): Promise<LockWaitSampler> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench lock-wait sampler" });
  await client.connect();
  const waiting: number[] = [];
  let active = 0;
  const byWait = new Map<string, number>();
  let stopped = false;
  let error: string | undefined;

  const loop = (async () => {
    while (!stopped) {
      const next = performance.now() + intervalMs;
      const { rows } = await client.query<Row>(SAMPLE_SQL);
      let locks = 0;
      for (const row of rows) {
        if (row.state !== "active" && row.waiting_for === null) continue;
        active++;
        if (row.waiting_for !== null || row.wait_event_type === "Lock") locks++;
        const label = waitLabel(row);
        byWait.set(label, (byWait.get(label) ?? 0) + 1);
      }
      waiting.push(locks);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
  })().catch((failure) => {
    error = String(failure?.message ?? failure);
  });

  return {
    async stop() {
      stopped = true;
      try {
        await loop;
      } finally {
        await client.end();
      }
      const samples = waiting.length;
      const perSample = (n: number) => (samples === 0 ? Number.NaN : n / samples);
      return {
        ...(error === undefined ? {} : { error }),
        samples,
        intervalMs,
        lockWaitingMean: perSample(waiting.reduce((sum, n) => sum + n, 0)),
        lockWaitingMax: samples === 0 ? Number.NaN : Math.max(...waiting),
        samplesWithLockWaitPercent: perSample(waiting.filter((n) => n > 0).length) * 100,
        activeMean: perSample(active),
        activeByWait: Object.fromEntries(
          [...byWait].sort((a, b) => b[1] - a[1]).map(([label, n]) => [label, perSample(n)]),
        ),
      };
    },
  };
}

/** "Lock:tuple on accounts", "IO:WALSync", "CPU". */
function waitLabel(row: Row): string {
  if (row.waiting_for !== null) {
    return `Lock:${row.waiting_for}${row.tuple_table === null ? "" : ` on ${row.tuple_table}`}`;
  }
  if (row.wait_event_type === null) return "CPU";
  return `${row.wait_event_type}:${row.wait_event}`;
}
