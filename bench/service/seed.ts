import { type Kysely, sql } from "kysely";
import { migrateToLatest } from "../../src/database/migrate.ts";
import { QUOTA_SLOTS } from "../../src/domain/quota-slots.ts";
import { quotaPeriodOf, slotShare } from "../../src/store/billing/charge.ts";
import {
  ANI_SQL,
  BENCH_ACCOUNT_ID,
  BENCH_MODE,
  CRM_ID_SQL,
  customerIdSql,
  DNIS_SQL,
  HAS_CRM_ID_SQL,
  HAS_OPEN_INTENT_SQL,
  HAS_VARIABLES_SQL,
} from "../load/population.ts";
import { progress } from "../phases/phase.ts";
import type { SeedRecord } from "../report/results.ts";
import { type BenchDatabase, databaseVersion } from "./bench-database.ts";

// Seeds the bench account and a population of callers straight in SQL
// (generate_series), in batches, before any server runs on the database.

const BATCH = 100_000;
/** A slot's remaining is an integer column: the account's credits, split over its slots, never run out. */
const HUGE_QUOTA = 2_000_000_000;
/** The bench account's allowance in any month, for the DB ceiling's charge. */
export const BENCH_ALLOWANCE = Object.freeze({
  free: HUGE_QUOTA,
  starter: HUGE_QUOTA,
  growth: HUGE_QUOTA,
  scale: HUGE_QUOTA,
});

export async function seedAccount(db: Kysely<any>, now: Date): Promise<void> {
  await sql`
    insert into accounts (id, name, billing_account_id, tier, created_at)
    values (${BENCH_ACCOUNT_ID}, 'Benchmark', 'ba_bench', 'scale', ${now})
  `.execute(db);
  await sql`
    insert into quota_slots (account_id, slot, period, remaining)
    select ${BENCH_ACCOUNT_ID}, s, ${quotaPeriodOf(now)}, ${slotShare(sql`${HUGE_QUOTA}::int`, sql`s`)}
    from generate_series(0, ${sql.lit(QUOTA_SLOTS - 1)}) s
  `.execute(db);
}

/** Adds callers with indexes from..to-1 to the account (the bench account's, unless named); reports progress after every batch. */
export async function seedCustomers(
  db: Kysely<any>,
  from: number,
  to: number,
  onBatch: (done: number) => void = () => {},
  accountId: string = BENCH_ACCOUNT_ID,
): Promise<void> {
  for (let start = from; start < to; start += BATCH) {
    const end = Math.min(to, start + BATCH) - 1;
    await withoutStatementTimeout(db, async (trx) => {
      for (const statement of batchStatements(start, end, accountId)) await sql.raw(statement).execute(trx);
    });
    onBatch(end + 1 - from);
  }
  await settle(db);
}

/**
 * Vacuums (freezing) and analyzes what the seed wrote. Rows loaded in bulk
 * carry no hint bits: the first statement to read each page afterwards sets
 * them and so dirties the page, and a vacuum (autovacuum, where it is on)
 * later rewrites every page; either way the benchmark would measure the
 * writing of whole tables. A database grown by real calls has had its pages
 * settled bit by bit all along.
 *
 * Only the tables that hold rows: a table vacuumed or analyzed while empty is
 * recorded as empty (0 rows in 0 pages), and a plan made then reads it with a
 * sequential scan. The service's statements are planned once per connection
 * (plan_cache_mode = force_generic_plan) and re-planned only when a table's
 * statistics change, which on a server without autovacuum never happens: calls
 * was read in full by every start and end, and PostgreSQL's CPU per call grew
 * with the table (docs/performance-log.md, "Plans made on empty tables").
 * Autovacuum leaves an empty table alone too, so its plans assume a table of
 * a few pages that may grow, and use its indexes.
 *
 * VACUUM cannot run inside a transaction, so the statement timeout is lifted
 * on the one connection it runs on. CHECKPOINT needs a superuser (or the
 * pg_checkpoint role), as creating the benchmark's database already does.
 */
async function settle(db: Kysely<any>): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    for (const table of await tablesWithRows(connection)) {
      await sql`vacuum (freeze, analyze) ${sql.table(table)}`.execute(connection);
    }
    // And writes those pages out now, rather than in a checkpoint during the measurement.
    await sql`checkpoint`.execute(connection);
    await sql`reset statement_timeout`.execute(connection);
  });
}

/** The tables of the current schema that hold at least one row. */
async function tablesWithRows(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c
    where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'
    order by c.relname`.execute(db);
  const held: string[] = [];
  for (const { name } of rows) {
    const { rows: sample } = await sql`select 1 from ${sql.table(name)} limit 1`.execute(db);
    if (sample.length > 0) held.push(name);
  }
  return held;
}

/**
 * The server's statement timeout (5 s by default) is right for calls, not for
 * inserting 100 000 rows at once on a busy machine: seeding lifts it.
 */
function withoutStatementTimeout(db: Kysely<any>, work: (trx: Kysely<any>) => Promise<unknown>): Promise<unknown> {
  return db.transaction().execute(async (trx) => {
    await sql`set local statement_timeout = 0`.execute(trx);
    return work(trx);
  });
}

/**
 * One statement each (the embedded database runs one per query). Every caller
 * called within the last 80 days, so all are inside the 90-day match window.
 */
function batchStatements(first: number, last: number, accountId: string): string[] {
  const series = `generate_series(${first}, ${last}) as i`;
  const lastCall = "now() - (i % 80) * interval '1 day' - (i % 86400) * interval '1 second'";
  const tenant = `'${accountId}', '${BENCH_MODE}'`;
  const customerId = customerIdSql(accountId);
  return [
    `insert into customers (id, account_id, mode, created_at, last_call_at)
       select ${customerId}, ${tenant}, now() - interval '85 days', ${lastCall} from ${series}`,
    `insert into customer_identifiers (account_id, mode, kind, namespace, value, customer_id, last_seen_at)
       select ${tenant}, 'ani', '', ${ANI_SQL}, ${customerId}, ${lastCall} from ${series}`,
    `insert into customer_identifiers (account_id, mode, kind, namespace, value, customer_id, last_seen_at)
       select ${tenant}, 'external_id', 'crm_id', ${CRM_ID_SQL}, ${customerId}, ${lastCall}
       from ${series} where ${HAS_CRM_ID_SQL}`,
    `insert into customer_dnis (customer_id, dnis, last_seen_at)
       select ${customerId}, ${DNIS_SQL}, ${lastCall} from ${series}`,
    `insert into intents (customer_id, name, status, attempt_count, updated_at)
       select ${customerId}, (array['billing_question', 'delivery_status', 'plan_change'])[1 + i % 3],
         'open', 1 + i % 3, ${lastCall}
       from ${series} where ${HAS_OPEN_INTENT_SQL}`,
    `insert into intents (customer_id, name, status, attempt_count, resolution_type, updated_at)
       select ${customerId}, 'address_change', 'resolved', 0, 'self_service', ${lastCall}
       from ${series} where i % 4 = 1`,
    `insert into variables (customer_id, name, value, source, ttl_seconds, updated_at, expires_at)
       select ${customerId}, v.name, v.value, 'ivr', 2592000, ${lastCall}, now() + interval '20 days'
       from ${series}
       cross join (values ('preferred_language', 'en'), ('last_agent', 'Morgan'), ('tier', 'gold')) as v (name, value)
       where ${HAS_VARIABLES_SQL}`,
  ];
}

/**
 * Adds callers from..to-1 to the benchmark database, creating the schema and
 * the account first when starting from 0. Returns the time it took and the
 * database's version string. `schema: "present"` leaves the schema to whoever
 * made it (another commit's server, in an A/B: its migrations may differ).
 */
export async function seedPopulation(
  database: BenchDatabase,
  from: number,
  to: number,
  { schema = "migrate" }: { schema?: "migrate" | "present" } = {},
): Promise<{ record: SeedRecord; version: string }> {
  const opened = await database.open();
  try {
    const began = performance.now();
    if (from === 0) {
      if (schema === "migrate") await migrateToLatest(opened.db);
      await seedAccount(opened.db, new Date());
    }
    await seedCustomers(opened.db, from, to, (done) => progress(`seeded ${done} of ${to - from} callers`));
    const seconds = (performance.now() - began) / 1000;
    progress(`seeding ${to - from} callers took ${seconds.toFixed(1)} s`);
    return { record: { from, to, seconds, via: "sql" }, version: await databaseVersion(opened) };
  } finally {
    await opened.close();
  }
}
