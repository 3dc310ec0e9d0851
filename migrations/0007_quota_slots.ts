import { type Kysely, sql } from "kysely";

// An account's monthly credits move from one counter on its row to 16 slots
// (src/domain/quota-slots.ts), so one account's concurrent calls no longer
// queue on one row lock. Each slot keeps its own period and renews lazily to
// its share of the allowance; the backfill splits each account's current
// credits the same way (shares differ by at most one and add up to the
// count). The old counter is dropped: a second, stale copy of the credits
// could only mislead.

const SLOTS = 16;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table quota_slots (
      account_id text not null references accounts (id) on delete cascade,
      slot smallint not null check (slot >= 0 and slot < ${sql.lit(SLOTS)}),
      period text not null,
      remaining integer not null check (remaining >= 0),
      primary key (account_id, slot)
    ) with (fillfactor = 50)
  `.execute(db);
  await sql`
    insert into quota_slots (account_id, slot, period, remaining)
    select a.id, s, a.quota_period,
      a.quota_remaining / ${sql.lit(SLOTS)} + (s < a.quota_remaining % ${sql.lit(SLOTS)})::int
    from accounts a, generate_series(0, ${sql.lit(SLOTS - 1)}) s
  `.execute(db);
  await sql`alter table accounts drop column quota_remaining, drop column quota_period`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts add column quota_remaining integer, add column quota_period text`.execute(db);
  await sql`
    update accounts set quota_remaining = s.remaining, quota_period = s.period
    from (select account_id, sum(remaining)::int as remaining, max(period) as period
          from quota_slots group by account_id) s
    where s.account_id = accounts.id
  `.execute(db);
  await sql`
    alter table accounts alter column quota_remaining set not null, alter column quota_period set not null,
      add constraint accounts_quota_remaining_check check (quota_remaining >= 0)
  `.execute(db);
  await sql`drop table quota_slots`.execute(db);
}
