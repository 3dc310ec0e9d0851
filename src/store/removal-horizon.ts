import { sql } from "kysely";
import type { Db } from "./database.ts";

// When a vacuum can remove a deleted row version: once no transaction still needs to see it. A version deleted by
// transaction D is kept ("recently dead", and copied as it is by VACUUM FULL) while any session of this database
// holds a snapshot taken before D committed, and every snapshot, in any database of the server, counts as running
// every transaction that had an id when it was taken. So one transaction left open in another database (a
// migration, a report, a session idle in a transaction) keeps an erased customer's rows in our tables' files
// through the vacuum meant to remove them (measured: all three rewritten files still held the erased number).

/** One past the newest finished transaction's id: every transaction committed before now has a smaller one. */
export async function nextTransactionId(db: Db): Promise<string> {
  const { rows } = await sql<{ next: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(
    db,
  );
  const next = rows[0]?.next;
  if (next === undefined) throw new Error("the server gave no snapshot");
  return next;
}

/**
 * Whether a vacuum now removes the versions deleted by transactions committed before `next`: no transaction older
 * than it runs in any database of the server, and no other session of this one holds a snapshot from before it.
 * PostgreSQL shows another role's snapshot only to a role with pg_read_all_stats; this sees the service's own.
 */
export async function removableBefore(db: Db, next: string): Promise<boolean> {
  const { rows } = await sql<{ removable: boolean }>`
    select pg_snapshot_xmin(pg_current_snapshot()) >= ${next}::xid8
      and not exists (
        select 1 from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and backend_xmin is not null
          and age(backend_xmin) > age(${next}::xid8::xid)
      ) as removable
  `.execute(db);
  return rows[0]?.removable === true;
}
