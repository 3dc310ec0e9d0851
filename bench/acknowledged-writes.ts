import type { BenchDatabase } from "./bench-database.ts";
import { type CallDriver, failureLabel } from "./call-driver.ts";
import { isRefusal } from "./open-loop.ts";
import type { TargetCheck } from "./targets.ts";

// What the client was told, read back from the database after the bursts: a
// start answered 200 / OK has its call row, an end answered so has its end
// recorded, and a start refused with 503 / UNAVAILABLE left no row.

/** The call ids per outcome the client saw; a start or end that failed otherwise is unknown either way. */
export interface WriteLedger {
  readonly startsAcknowledged: string[];
  readonly startsRefused: string[];
  readonly endsAcknowledged: string[];
}

export interface WriteReadBack {
  readonly startsAcknowledged: number;
  readonly startsRefused: number;
  readonly endsAcknowledged: number;
  /** Acknowledged starts with no call row. */
  readonly startsLost: number;
  /** Acknowledged ends whose call has no end recorded. */
  readonly endsLost: number;
  /** Refused starts that left a call row. */
  readonly refusedWithRow: number;
}

export function createWriteLedger(): WriteLedger {
  return { startsAcknowledged: [], startsRefused: [], endsAcknowledged: [] };
}

/** The driver, noting each call id by the answer its client got (one array push per answer). */
export function recordWrites(driver: CallDriver, ledger: WriteLedger): CallDriver {
  return {
    name: driver.name,
    async start(call) {
      try {
        const customerRef = await driver.start(call);
        ledger.startsAcknowledged.push(call.callId);
        return customerRef;
      } catch (error) {
        if (isRefusal(failureLabel(error))) ledger.startsRefused.push(call.callId);
        throw error;
      }
    },
    async end(call, customerRef) {
      await driver.end(call, customerRef);
      ledger.endsAcknowledged.push(call.callId);
    },
    close: () => driver.close(),
  };
}

const CHUNK = 5000;

/** Reads the ledger's calls back; with the embedded database, only once the server has let go of it. */
export async function readBackWrites(database: BenchDatabase, ledger: WriteLedger): Promise<WriteReadBack> {
  const store = await database.open();
  try {
    const ended = new Map<string, boolean>();
    const ids = [...ledger.startsAcknowledged, ...ledger.startsRefused];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await store.db
        .selectFrom("calls")
        .select(["call_id", "call_end"])
        .where("call_id", "in", ids.slice(i, i + CHUNK))
        .execute();
      for (const row of rows) ended.set(row.call_id, row.call_end !== null);
    }
    return {
      startsAcknowledged: ledger.startsAcknowledged.length,
      startsRefused: ledger.startsRefused.length,
      endsAcknowledged: ledger.endsAcknowledged.length,
      startsLost: ledger.startsAcknowledged.filter((id) => !ended.has(id)).length,
      endsLost: ledger.endsAcknowledged.filter((id) => ended.get(id) !== true).length,
      refusedWithRow: ledger.startsRefused.filter((id) => ended.has(id)).length,
    };
  } finally {
    await store.close();
  }
}

/** The target over every burst run; not measured when no run was read back. */
export function acknowledgedWritesCheck(runs: readonly { readonly writes?: WriteReadBack }[]): TargetCheck {
  const target = "no acknowledged write lost in the bursts (read back from the database)";
  const read = runs.flatMap((run) => (run.writes === undefined ? [] : [run.writes]));
  if (read.length === 0) return { target, measured: "not measured", met: undefined };
  const sum = (pick: (writes: WriteReadBack) => number) => read.reduce((total, writes) => total + pick(writes), 0);
  const lost = sum((w) => w.startsLost) + sum((w) => w.endsLost) + sum((w) => w.refusedWithRow);
  return {
    target,
    measured:
      `${sum((w) => w.startsAcknowledged)} starts and ${sum((w) => w.endsAcknowledged)} ends acknowledged: ` +
      `${sum((w) => w.startsLost)} starts and ${sum((w) => w.endsLost)} ends missing; ` +
      `${sum((w) => w.startsRefused)} refused starts, ${sum((w) => w.refusedWithRow)} left a row`,
    met: lost === 0,
  };
}
