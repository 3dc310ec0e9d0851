import { sql } from "kysely";
import type { Db } from "../database.ts";

// The calls the contact-figures job has still to count, and its place among them.

/** The last call counted; without `call`, every call that ended at or before `endedAt` is counted. */
export interface FiguresCursor {
  readonly endedAt: Date;
  readonly call?: { readonly accountId: string; readonly mode: string; readonly callId: string };
}

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

/** A call lasting longer than this is not counted: the look for ended calls reads calls by their start. */
export const LONGEST_COUNTED_CALL_MS = 24 * 60 * 60 * 1000;

/**
 * The next calls ended after the cursor and at or before `upTo`, oldest end first, at most `limit`. Read by the
 * BRIN index on call_start (the calls started since the cursor's end, less the longest counted call), since
 * call_end has no index: one would cost every end an entry in each of the table's indexes.
 */
export async function endedCallsAfter(
  db: Db,
  cursor: FiguresCursor,
  upTo: Date,
  limit: number,
): Promise<EndedCallRow[]> {
  const after = cursor.endedAt;
  const since = new Date(after.getTime() - LONGEST_COUNTED_CALL_MS);
  const { rows } = await sql<EndedCallRow>`
    select c.account_id, c.mode, c.call_id, c.customer_id, c.call_start, c.call_end, c.intents, a.repeat_window_days
    from calls c join accounts a on a.id = c.account_id
    where c.call_start >= ${since} and c.call_start <= ${upTo} and c.call_end <= ${upTo}
      and c.customer_id is not null
      and (c.call_end > ${after} or (c.call_end = ${after} and (c.account_id, c.mode, c.call_id) > (
        ${cursor.call?.accountId ?? null}::text, ${cursor.call?.mode ?? null}::text, ${cursor.call?.callId ?? null}::text)))
    order by c.call_end, c.account_id, c.mode, c.call_id
    limit ${limit}
  `.execute(db);
  return rows;
}

export interface FiguresProgress {
  readonly cursor: FiguresCursor;
  /** When a run last found every ended call counted. */
  readonly caughtUpAt: Date | undefined;
}

export async function readProgress(db: Db): Promise<FiguresProgress | undefined> {
  const { rows } = await sql<{
    ended_at: Date;
    account_id: string;
    mode: string;
    call_id: string;
    caught_up_at: Date | null;
  }>`select ended_at, account_id, mode, call_id, caught_up_at from contact_figures_progress where id = 1`.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    cursor: {
      endedAt: row.ended_at,
      ...(row.call_id === "" ? {} : { call: { accountId: row.account_id, mode: row.mode, callId: row.call_id } }),
    },
    caughtUpAt: row.caught_up_at ?? undefined,
  };
}

export async function writeProgress(db: Db, progress: FiguresProgress): Promise<void> {
  const { cursor } = progress;
  await sql`
    insert into contact_figures_progress (id, ended_at, account_id, mode, call_id, caught_up_at)
    values (1, ${cursor.endedAt}, ${cursor.call?.accountId ?? ""}, ${cursor.call?.mode ?? ""},
      ${cursor.call?.callId ?? ""}, ${progress.caughtUpAt ?? null})
    on conflict (id) do update set ended_at = excluded.ended_at, account_id = excluded.account_id,
      mode = excluded.mode, call_id = excluded.call_id, caught_up_at = excluded.caught_up_at
  `.execute(db);
}

/**
 * Where a first run starts: just before the earliest call kept, so that the calls of the last 30 days are counted
 * when the figures arrive on a database in use; with no call, at `settled` (nothing to count before it). Read
 * once in a deployment's life.
 */
export async function firstCursor(db: Db, settled: Date): Promise<FiguresCursor> {
  const { rows } = await sql<{ earliest: Date | null }>`select min(call_start) as earliest from calls`.execute(db);
  const earliest = rows[0]?.earliest;
  return { endedAt: earliest ? new Date(Math.min(earliest.getTime() - 1, settled.getTime())) : settled };
}
