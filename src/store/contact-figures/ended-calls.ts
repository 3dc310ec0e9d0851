import { sql } from "kysely";
import type { Db } from "../database.ts";

// The calls the contact-figures job has still to count: the queue each end appends its call's key to, in the
// end's own statement (src/store/calls/record-end.ts), and how far the counting has come.

export interface EndedCallRow {
  readonly account_id: string;
  readonly mode: string;
  readonly call_id: string;
  readonly customer_id: string;
  readonly call_start: Date;
  readonly call_end: Date;
  /** [{intent, status}] as the end saved them, or null. */
  readonly intents: unknown;
  readonly repeat_window_days: number;
}

export interface TakenEnds {
  /** The ends taken off the queue, counted or not. */
  readonly taken: number;
  /** The latest end time among them. */
  readonly lastEnd: Date | undefined;
  /** Their calls still as they ended, oldest end first. */
  readonly calls: EndedCallRow[];
}

/**
 * Takes the oldest ends queued at or before `upTo`, at most `limit`, off the queue, with their calls. One probe
 * of the queue's index, then of the calls' primary key for each end and the accounts' for each account, whatever
 * the statistics: each call's lookup is a fenced lateral subquery (`limit 1`) by the end's own key
 * (docs/architecture.md, "Plans that cannot degrade"); unfenced, a plan made while `calls` was small joined it
 * by hash, reading it whole. An end whose call is gone (erased, swept), started again, or moved to a caller
 * forgotten since, is taken and not counted.
 */
export async function takeEndedCalls(db: Db, upTo: Date, limit: number): Promise<TakenEnds> {
  const { rows } = await sql<Partial<EndedCallRow> & { queued_end: Date }>`
    with taken as (
      delete from contact_figures_queue
      where ctid = any(array(
        select ctid from contact_figures_queue where call_end <= ${upTo} order by call_end limit ${limit}))
      returning account_id, mode, call_id, call_end
    ),
    windows as (
      select id, repeat_window_days from accounts where id = any(array(select distinct account_id from taken))
    )
    select t.call_end as queued_end, c.account_id, c.mode, c.call_id, c.customer_id, c.call_start, c.call_end,
      c.intents, a.repeat_window_days
    from taken t
    left join lateral (
      select account_id, mode, call_id, customer_id, call_start, call_end, intents from calls
      where calls.account_id = t.account_id and calls.mode = t.mode and calls.call_id = t.call_id
        and calls.call_end = t.call_end and calls.customer_id is not null
      limit 1
    ) c on true
    left join windows a on a.id = t.account_id
    order by t.call_end, t.account_id, t.mode, t.call_id
  `.execute(db);
  const calls = rows.filter((row): row is EndedCallRow & { queued_end: Date } => row.customer_id != null);
  return { taken: rows.length, lastEnd: rows.at(-1)?.queued_end, calls };
}

export interface FiguresProgress {
  /** Every call that ended before it is counted, but for an end that committed later than it settles. */
  readonly countedThrough: Date;
  /** When a run last found every ended call counted. */
  readonly caughtUpAt: Date | undefined;
}

export async function readProgress(db: Db): Promise<FiguresProgress | undefined> {
  const { rows } = await sql<{ counted_through: Date; caught_up_at: Date | null }>`
    select counted_through, caught_up_at from contact_figures_progress where id = 1`.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  return { countedThrough: row.counted_through, caughtUpAt: row.caught_up_at ?? undefined };
}

export async function writeProgress(db: Db, progress: FiguresProgress): Promise<void> {
  await sql`
    insert into contact_figures_progress (id, counted_through, caught_up_at)
    values (1, ${progress.countedThrough}, ${progress.caughtUpAt ?? null})
    on conflict (id) do update set counted_through = excluded.counted_through, caught_up_at = excluded.caught_up_at
  `.execute(db);
}

/**
 * A plain vacuum of the queue. Every end it held leaves a dead row and a dead index entry once taken; without a
 * vacuum the queue's file and index would grow by a day of ends each day, and its index scan would step over
 * every end ever taken.
 */
export async function vacuumQueue(db: Db): Promise<void> {
  // One statement, under the connection's own timeout: a drained queue takes a few pages. Setting the timeout
  // aside for it (as the erasure's compaction does, vacuum.ts) would take three statements, which a
  // transaction-mode pooler may hand to three server connections every pass.
  await sql`vacuum contact_figures_queue`.execute(db);
}
