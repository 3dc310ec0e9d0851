import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

// A barrier made of PostgreSQL's own locks, to hold a transaction of the
// service provably in flight: a session of the test locks rows that
// transaction needs, and the server's sessions blocked behind it are read
// from pg_stat_activity (pg_blocking_pids), never guessed with a sleep.

export interface RowHold {
  /** The backend holding the rows. */
  readonly pid: number;
  /** Rolls the holding transaction back, letting whoever waits for the rows go on. */
  release(): Promise<void>;
}

/** Opens a transaction that locks the rows `lockingQuery` (a `select … for update`) selects; it must lock at least one. */
export async function holdRows(url: string, lockingQuery: string, values: unknown[]): Promise<RowHold> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("begin");
  // Asked inside the transaction: behind a transaction-mode pooler, only the transaction keeps one backend.
  const pid = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0].pid;
  const { rowCount } = await client.query(lockingQuery, values);
  if (!rowCount) {
    await client.end();
    throw new Error(`the barrier locked no row: ${lockingQuery} ${JSON.stringify(values)}`);
  }
  let released: Promise<void> | undefined;
  const release = () => {
    released ??= client.query("rollback").then(() => client.end());
    return released;
  };
  return { pid, release };
}

/** A session that watches who waits for whom. */
export interface LockWatcher {
  /**
   * The backend waiting for a lock `holder` holds, once there is one. Rejects when `settled` settles first:
   * the request that was to wait answered without waiting.
   */
  waiterOf(holder: number, settled?: Promise<unknown>): Promise<number>;
  close(): Promise<void>;
}

export async function createLockWatcher(url: string): Promise<LockWatcher> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    async waiterOf(holder, settled) {
      let answered = false;
      void settled?.then(
        () => (answered = true),
        () => (answered = true),
      );
      for (;;) {
        const { rows } = await client.query<{ pid: number }>(
          "select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid)) order by pid limit 1",
          [holder],
        );
        if (rows[0] !== undefined) return rows[0].pid;
        if (answered) throw new Error(`the request answered without waiting for backend ${holder}`);
        // Polling a state, not waiting for luck: the loop ends when the waiter is seen, however long that takes.
        await sleep(10);
      }
    },
    close: () => client.end(),
  };
}
