import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "../store/database.ts";
import { compactErasedTables } from "../store/erased-tables.ts";
import { nextTransactionId, removableBefore } from "../store/removal-horizon.ts";

// An erased customer's rows stay in the tables' files as dead versions until
// a vacuum removes them, and in dirty pages until a checkpoint writes the
// cleaned pages out. PGlite runs no autovacuum at all, and PostgreSQL's comes
// when it comes. So every erasure asks for a vacuum of the tables that held
// the customer, then a checkpoint; a burst of erasures shares one run (two at
// most: the one under way, and one for what arrived during it).
// A plain VACUUM frees the dead versions but does not overwrite their bytes:
// what no live row was moved over stays in the page's free space until reused.
// VACUUM FULL rewrites the tables into new files (and holds them locked while
// it does): the embedded database's default, where tables are small and there
// is one connection anyway. What stays elsewhere (the WAL until its segments
// are reused, backups): docs/security.md.
// A run first waits until the erased versions can be removed: while a
// transaction older than the erasures runs anywhere on the server, a vacuum
// keeps them (store/removal-horizon.ts), so one run then would be for nothing.
// The wait holds no connection; it is told after `heldBackWarningMs`, and a
// close gives it up (the versions go with the next erasure's run).

/** How often a run waiting for older transactions looks again. */
const REMOVABLE_POLL_MS = 100;
/** A minute: longer than any transaction of the service's own, so what holds the run is someone else's. */
const HELD_BACK_WARNING_MS = 60_000;

export interface ErasureCompaction {
  /** Asks for a vacuum and a checkpoint after an erasure; returns at once. */
  request(): void;
  /** Settles when no run is under way or asked for. */
  idle(): Promise<void>;
  /** Runs so far (finished or failed), for tests and metrics. */
  runs(): number;
  /** Waits for the run under way (one still waiting for older transactions gives up); no new run starts after. */
  close(): Promise<void>;
}

export type ErasureVacuum = "full" | "plain" | "off";

export interface ErasureCompactionOptions {
  readonly vacuum: ErasureVacuum;
  /** A run starts once no erasure has asked for this long, so a burst shares it. */
  readonly quietMs: number;
  readonly onError: (error: unknown) => void;
  /** A run has waited this long for transactions older than the erasures to end (a minute unless given)… */
  readonly heldBackWarningMs?: number;
  /** …and says so, once per run. */
  readonly onHeldBack: (waitedMs: number) => void;
}

export function createErasureCompaction(db: Db, options: ErasureCompactionOptions): ErasureCompaction {
  const { vacuum, quietMs, onError, heldBackWarningMs = HELD_BACK_WARNING_MS, onHeldBack } = options;
  let asked = false;
  // Aborted by close: no run starts after it, and a run waiting for older transactions gives up.
  const closing = new AbortController();
  let count = 0;
  let timer: NodeJS.Timeout | undefined;
  let waiting: { promise: Promise<void>; resolve: () => void } | undefined;
  let running: Promise<void> | undefined;

  /** Whether the versions deleted so far became removable before the job was closed. */
  const removable = async (): Promise<boolean> => {
    const next = await nextTransactionId(db);
    const since = Date.now();
    let told = false;
    while (!(await removableBefore(db, next))) {
      const waited = Date.now() - since;
      if (!told && waited >= heldBackWarningMs) {
        told = true;
        onHeldBack(waited);
      }
      const slept = await sleep(REMOVABLE_POLL_MS, true, { signal: closing.signal }).catch(() => false);
      if (!slept) return false;
    }
    return true;
  };
  const compact = async () => {
    if (await removable()) await compactErasedTables(db, vacuum === "full" ? "full" : "plain");
  };
  const loop = async () => {
    while (asked && !closing.signal.aborted) {
      asked = false;
      count++;
      await compact().catch(onError);
    }
    running = undefined;
  };
  const start = () => {
    timer = undefined;
    running ??= loop();
    const settled = waiting;
    waiting = undefined;
    void running.then(() => settled?.resolve());
  };
  return {
    request() {
      if (vacuum === "off" || closing.signal.aborted) return;
      asked = true;
      // A run under way picks this up when it ends; otherwise the quiet period starts again.
      if (running !== undefined) return;
      if (waiting === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => {
          resolve = done;
        });
        waiting = { promise, resolve };
      }
      clearTimeout(timer);
      timer = setTimeout(start, quietMs);
      timer.unref();
    },
    async idle() {
      while (waiting !== undefined || running !== undefined) await (waiting?.promise ?? running);
    },
    runs: () => count,
    async close() {
      closing.abort();
      clearTimeout(timer);
      timer = undefined;
      waiting?.resolve();
      waiting = undefined;
      await running;
    },
  };
}
