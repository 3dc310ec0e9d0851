import type { Clock } from "../domain/clock.ts";
import { applyChange, countCall, type DayCounts, emptyCounts } from "../domain/contact-figures.ts";
import {
  type CustomerKey,
  loadCustomerFigures,
  lockCustomers,
  saveCustomerFigures,
} from "../store/contact-figures/customer-figures.ts";
import { addDayCounts, type DayCountsKey } from "../store/contact-figures/day-counts.ts";
import {
  type EndedCallRow,
  readProgress,
  takeEndedCalls,
  vacuumQueue,
  writeProgress,
} from "../store/contact-figures/ended-calls.ts";
import type { Db } from "../store/database.ts";
import { withSweepLock } from "../store/retention-repository.ts";
import { type RepeatingPass, startRepeatingPass } from "./repeating-pass.ts";

// Counts the ended calls into the contact figures (docs/analytics.md), off the call's path: an end only queues
// its call's key. Each batch takes the oldest ends off the queue and moves the counts, the customers' kept figures
// and the progress in one transaction under an advisory lock, so several instances never count a call twice and
// a failed batch counts nothing (its ends stay queued).

const FIGURES_LOCK_ID = 0x63_63_66_67; // "ccfg"
/**
 * Only calls ended this long ago are taken: by then every end with an earlier end time has committed (or undone
 * itself), so a customer's calls are counted in the order they ended.
 */
export const SETTLE_MS = 10_000;

export interface CountResult {
  /** Ends taken off the queue, counted or not (src/store/contact-figures/ended-calls.ts). */
  readonly taken: number;
  readonly counted: number;
  /** Every call ended before `now` less the settling time is counted. */
  readonly caughtUp: boolean;
}

/** One batch of at most `batchSize` calls. Undefined when another instance is counting. */
export function countEndedCalls(db: Db, now: Date, batchSize: number): Promise<CountResult | undefined> {
  return withSweepLock(db, FIGURES_LOCK_ID, async (trx) => {
    const progress = await readProgress(trx);
    const settled = new Date(now.getTime() - SETTLE_MS);
    const ends = await takeEndedCalls(trx, settled, batchSize);
    await countCalls(trx, ends.calls);
    const caughtUp = ends.taken < batchSize;
    // A full batch may have left ends of its last end time queued: the calls ended before it are counted.
    const reached = caughtUp ? settled : (ends.lastEnd ?? settled);
    const before = progress?.countedThrough;
    await writeProgress(trx, {
      countedThrough: before && before > reached ? before : reached,
      caughtUpAt: caughtUp ? now : progress?.caughtUpAt,
    });
    return { taken: ends.taken, counted: ends.calls.length, caughtUp };
  });
}

async function countCalls(trx: Db, calls: readonly EndedCallRow[]): Promise<void> {
  if (calls.length === 0) return;
  const customers = new Map<string, CustomerKey>();
  for (const call of calls) {
    customers.set(call.customer_id, { customerId: call.customer_id, accountId: call.account_id, mode: call.mode });
  }
  const present = await lockCustomers(trx, [...customers.keys()]);
  const { figures, loaded } = await loadCustomerFigures(trx, [...customers.keys()]);
  const changes = new Map<string, { key: DayCountsKey; counts: DayCounts }>();
  for (const call of calls) {
    const add = (day: string, intent: string, change: Parameters<typeof applyChange>[1]) => {
      const id = JSON.stringify([call.account_id, call.mode, day, intent]);
      let entry = changes.get(id);
      if (!entry) {
        entry = { key: { accountId: call.account_id, mode: call.mode, day, intent }, counts: emptyCounts() };
        changes.set(id, entry);
      }
      applyChange(entry.counts, change);
    };
    const customer = figures.get(call.customer_id);
    if (!customer) continue;
    countCall(
      customer,
      { start: call.call_start, intents: savedIntents(call.intents), windowDays: call.repeat_window_days },
      add,
    );
  }
  await addDayCounts(trx, [...changes.values()]);
  const kept = [...customers.values()].filter((key) => present.has(key.customerId));
  await saveCustomerFigures(trx, kept, figures, loaded);
}

/** The intents a call's end saved, as stored with the call. */
function savedIntents(stored: unknown): { intent: string; status: "open" | "resolved" }[] {
  const list = typeof stored === "string" ? JSON.parse(stored) : stored;
  if (!Array.isArray(list)) return [];
  return list.map((i: { intent: string; status: string }) => ({
    intent: i.intent,
    status: i.status === "resolved" ? "resolved" : "open",
  }));
}

/** Batches of one pass at most: the next pass goes on with a backlog. */
const MAX_BATCHES = 100;

export type ContactFiguresJob = RepeatingPass;

/** Counts every `intervalMs`, batch after batch while calls are left, then vacuums the queue it took from. */
export function startContactFiguresJob(
  db: Db,
  clock: Clock,
  options: { intervalMs: number; batchSize: number; onError: (error: unknown) => void },
): ContactFiguresJob {
  const pass = async (stopping: () => boolean) => {
    let taken = 0;
    for (let batch = 0; batch < MAX_BATCHES && !stopping(); batch++) {
      const result = await countEndedCalls(db, clock.now(), options.batchSize);
      taken += result?.taken ?? 0;
      if (result === undefined || result.caughtUp) break;
    }
    if (taken > 0) await vacuumQueue(db);
  };
  return startRepeatingPass(options.intervalMs, pass, options.onError);
}
