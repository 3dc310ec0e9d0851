import { sql } from "kysely";
import { type CallDriver, failureLabel, failureMessage } from "../load/call-driver.ts";
import { isRefusal } from "../load/operation-stats.ts";
import type { TargetCheck, WriteReadBack } from "../report/results.ts";
import type { BenchDatabase } from "../service/bench-database.ts";

// What the client was told, read back from the database after the bursts: a
// start answered 200 / OK has its call row, an end answered so has its end
// recorded, and a start refused by the admission control or answered 503 by
// its time budget left no row (the budget answers with the write's outcome:
// src/guards/admission-guard.ts).

/** The call ids per outcome the client saw; a start or end that failed otherwise is unknown either way. */
export interface WriteLedger {
  readonly startsAcknowledged: string[];
  /** Refused by the admission control: never started. */
  readonly startsShed: string[];
  /** Answered 503 / UNAVAILABLE when the time budget ran out. */
  readonly startsTimedOut: string[];
  readonly endsAcknowledged: string[];
}

export function createWriteLedger(): WriteLedger {
  return { startsAcknowledged: [], startsShed: [], startsTimedOut: [], endsAcknowledged: [] };
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
        if (isRefusal(failureLabel(error))) {
          const byBudget = failureMessage(error).startsWith(BUDGET_MESSAGE);
          (byBudget ? ledger.startsTimedOut : ledger.startsShed).push(call.callId);
        }
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
/** How the time budget's 503 begins (src/guards/admission-guard.ts). */
const BUDGET_MESSAGE = "Not answered within";

/** Reads the ledger's calls back; with the embedded database, only once the server has let go of it. */
export async function readBackWrites(database: BenchDatabase, ledger: WriteLedger): Promise<WriteReadBack> {
  const store = await database.open();
  try {
    const ended = new Map<string, boolean>();
    const ids = [...ledger.startsAcknowledged, ...ledger.startsShed, ...ledger.startsTimedOut];
    for (let i = 0; i < ids.length; i += CHUNK) {
      // A join, not `call_id in (...)`: under the service's generic plans an IN
      // list of parameters is searched element by element for each row of
      // calls (no hashed lookup), 16 s a chunk at 300,000 calls.
      const { rows } = await sql<{ call_id: string; ended: boolean }>`
        select c.call_id, c.call_end is not null as ended
        from unnest(${ids.slice(i, i + CHUNK)}::text[]) as ids(id)
        join calls c on c.call_id = ids.id`.execute(store.db);
      for (const row of rows) ended.set(row.call_id, row.ended);
    }
    return {
      startsAcknowledged: ledger.startsAcknowledged.length,
      startsShed: ledger.startsShed.length,
      startsTimedOut: ledger.startsTimedOut.length,
      endsAcknowledged: ledger.endsAcknowledged.length,
      startsLost: ledger.startsAcknowledged.filter((id) => !ended.has(id)).length,
      endsLost: ledger.endsAcknowledged.filter((id) => ended.get(id) !== true).length,
      shedWithRow: ledger.startsShed.filter((id) => ended.has(id)).length,
      timedOutWithRow: ledger.startsTimedOut.filter((id) => ended.has(id)).length,
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
  const wrong =
    sum((w) => w.startsLost) + sum((w) => w.endsLost) + sum((w) => w.shedWithRow) + sum((w) => w.timedOutWithRow);
  return {
    target,
    measured:
      `${sum((w) => w.startsAcknowledged)} starts and ${sum((w) => w.endsAcknowledged)} ends acknowledged: ` +
      `${sum((w) => w.startsLost)} starts and ${sum((w) => w.endsLost)} ends missing; ` +
      `${sum((w) => w.startsShed)} starts refused by the limiter, ${sum((w) => w.shedWithRow)} left a row; ` +
      `${sum((w) => w.startsTimedOut)} answered 503 by the budget, ${sum((w) => w.timedOutWithRow)} left a row`,
    met: wrong === 0,
  };
}
