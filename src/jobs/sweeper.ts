import type { Clock } from "../domain/clock.ts";
import { FINISHED_DELIVERY_RETENTION_DAYS } from "../domain/events.ts";
import { CALL_ID_REUSE_DAYS, DAY_MS } from "../domain/limits.ts";
import type { MonthlyAllowance } from "../domain/tiers.ts";
import type { Db } from "../store/database.ts";
import { deleteFinishedDeliveries } from "../store/event-delivery-repository.ts";
import { deleteOldRequests } from "../store/request-log-repository.ts";
import {
  deleteExpiredIdempotencyKeys,
  deleteExpiredVariables,
  deleteOldCalls,
  deleteStaleCustomers,
  withSweepLock,
} from "../store/retention-repository.ts";
import { deleteOldReceipts } from "../store/webhook-receipts.ts";
import { noticeMissedCreditsLow } from "./credits-low-sweep.ts";
import { type RepeatingPass, startRepeatingPass } from "./repeating-pass.ts";

// Retention: customers with no call within their account's retention (7 to
// 365 days, src/domain/retention.ts; and with them their identifiers, intents and variables), call records older than 30 days (so
// their call_id may be used again), expired variables and idempotency keys,
// webhook receipts past their replay window, finished event deliveries older
// than 30 days (their payloads may carry a caller's variables), and the
// Requests page's rows older than 7 days. And credits.low: a threshold
// crossed this month that no instance has written (./credits-low-sweep.ts).
// One instance sweeps at a time, in bounded batches.

const SWEEP_LOCK_ID = 0x63_63_73_77; // "ccsw"
/** How long a webhook's answer is kept for its replays: longer than any platform's signature window. */
export const WEBHOOK_RECEIPT_MS = 60 * 60 * 1000;
/** How long the dashboard's Requests page keeps a request. */
export const REQUEST_LOG_DAYS = 7;

export interface SweepResult {
  readonly customers: number;
  readonly calls: number;
  readonly variables: number;
  readonly idempotencyKeys: number;
  readonly webhookReceipts: number;
  readonly eventDeliveries: number;
  readonly requests: number;
  readonly creditsLowNotices: number;
}

/** One pass: at most `batchSize` rows of each kind. Undefined when another instance is sweeping. */
export async function sweepOnce(
  db: Db,
  now: Date,
  batchSize: number,
  allowance: MonthlyAllowance,
): Promise<SweepResult | undefined> {
  const swept = await deleteExpired(db, now, batchSize);
  if (swept === undefined) return undefined;
  // After the deletions commit, in statements of its own: its scan of every account's credits, slow or failing,
  // never undoes them, and a notice it writes is not held locked for the rest of a transaction.
  return { ...swept, creditsLowNotices: await noticeMissedCreditsLow(db, now, allowance, batchSize) };
}

type Deleted = Omit<SweepResult, "creditsLowNotices">;

/** At most `batchSize` expired rows of each kind, in one transaction under the sweep lock; undefined when another instance holds it. */
function deleteExpired(db: Db, now: Date, batchSize: number): Promise<Deleted | undefined> {
  return withSweepLock(db, SWEEP_LOCK_ID, async (trx) => ({
    customers: await deleteStaleCustomers(trx, now, batchSize),
    calls: await deleteOldCalls(trx, new Date(now.getTime() - CALL_ID_REUSE_DAYS * DAY_MS), batchSize),
    variables: await deleteExpiredVariables(trx, now, batchSize),
    idempotencyKeys: await deleteExpiredIdempotencyKeys(trx, now, batchSize),
    webhookReceipts: await deleteOldReceipts(trx, new Date(now.getTime() - WEBHOOK_RECEIPT_MS), batchSize),
    eventDeliveries: await deleteFinishedDeliveries(
      trx,
      new Date(now.getTime() - FINISHED_DELIVERY_RETENTION_DAYS * DAY_MS),
      batchSize,
    ),
    requests: await deleteOldRequests(trx, new Date(now.getTime() - REQUEST_LOG_DAYS * DAY_MS), batchSize),
  }));
}

/** Rounds of one pass at most, however large the backlog: the next pass goes on with it. */
const MAX_ROUNDS = 100;

export type Sweeper = RepeatingPass;

/**
 * Sweeps every `intervalMs`; while a round of deletions fills a whole batch it
 * goes again at once, so a backlog drains without one long transaction. The
 * look for missed credits.low notices scans every account's credits, so it
 * runs once the deletions are done, again only while it fills a batch.
 */
export function startSweeper(
  db: Db,
  clock: Clock,
  options: {
    intervalMs: number;
    batchSize: number;
    monthlyAllowance: MonthlyAllowance;
    onError: (error: unknown) => void;
  },
): Sweeper {
  const pass = async (stopping: () => boolean) => {
    for (let round = 0; round < MAX_ROUNDS && !stopping(); round++) {
      const deleted = await deleteExpired(db, clock.now(), options.batchSize);
      // Another instance is sweeping: it looks for missed notices too.
      if (deleted === undefined) return;
      if (Object.values(deleted).every((n) => n < options.batchSize)) break;
    }
    for (let round = 0; round < MAX_ROUNDS && !stopping(); round++) {
      const notices = await noticeMissedCreditsLow(db, clock.now(), options.monthlyAllowance, options.batchSize);
      if (notices < options.batchSize) return;
    }
  };
  return startRepeatingPass(options.intervalMs, pass, options.onError);
}
