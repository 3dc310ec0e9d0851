import { type Kysely, sql } from "kysely";

// Contact-centre figures (docs/analytics.md), kept by a job off the call's path.
//
// accounts.repeat_window_days: the repeat window, 1 to 30 days, 7 by default.
// contact_figures_days: the counts per account, mode, UTC day and intent ('' for every call), which the reads sum.
// contact_figures_callers, contact_figures_issues: what the job keeps per customer to count the next call; they
// go with the customer (erasure, retention, the merged-away side of a merge) by the cascade.
// contact_figures_progress: the last call counted, one row.

const statements = [
  sql`
    alter table accounts add column repeat_window_days integer not null default 7
      constraint accounts_repeat_window_days_range check (repeat_window_days between 1 and 30)
  `,
  sql`
    create table contact_figures_days (
      account_id text not null references accounts (id) on delete cascade,
      mode text not null,
      day date not null,
      intent text not null,
      calls integer not null default 0,
      repeat_calls integer not null default 0,
      followed_by_repeat integer not null default 0,
      issues_opened integer not null default 0,
      first_contact integer not null default 0,
      issues_resolved integer not null default 0,
      attempts_sum integer not null default 0,
      attempts_1 integer not null default 0,
      attempts_2 integer not null default 0,
      attempts_3 integer not null default 0,
      attempts_4 integer not null default 0,
      attempts_5_or_more integer not null default 0,
      primary key (account_id, mode, day, intent)
    )
  `,
  sql`
    create table contact_figures_callers (
      customer_id uuid primary key references customers (id) on delete cascade,
      last_call_at timestamptz not null,
      last_call_intents text[] not null
    )
  `,
  sql`
    create table contact_figures_issues (
      customer_id uuid not null references customers (id) on delete cascade,
      intent text not null,
      account_id text not null,
      mode text not null,
      opened_at timestamptz not null,
      attempts integer not null,
      resolved_at timestamptz,
      first_contact boolean not null,
      primary key (customer_id, intent)
    )
  `,
  // Open issues per UTC day they opened, kept by a trigger from contact_figures_issues itself: whatever removes
  // an issue (the job resolving it, an erasure's or a merge's cascade, the retention sweep) takes it off the
  // count, and the read of open issues by age is a few hundred rows, never a scan of the issues.
  sql`
    create table contact_figures_open (
      account_id text not null,
      mode text not null,
      day date not null,
      open integer not null,
      primary key (account_id, mode, day)
    )
  `,
  sql`
    create function contact_figures_open_change() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.resolved_at is null then
        update contact_figures_open set open = open - 1
        where account_id = old.account_id and mode = old.mode and day = (old.opened_at at time zone 'UTC')::date;
      end if;
      if tg_op in ('INSERT', 'UPDATE') and new.resolved_at is null then
        insert into contact_figures_open (account_id, mode, day, open)
        values (new.account_id, new.mode, (new.opened_at at time zone 'UTC')::date, 1)
        on conflict (account_id, mode, day) do update set open = contact_figures_open.open + 1;
      end if;
      return null;
    end
    $$
  `,
  sql`
    create trigger contact_figures_open_count after insert or update or delete on contact_figures_issues
      for each row execute function contact_figures_open_change()
  `,
  sql`
    create table contact_figures_progress (
      id smallint primary key default 1 constraint contact_figures_progress_one check (id = 1),
      ended_at timestamptz not null,
      account_id text not null,
      mode text not null,
      call_id text not null,
      caught_up_at timestamptz
    )
  `,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table contact_figures_progress`.execute(db);
  await sql`drop table contact_figures_issues`.execute(db);
  await sql`drop function contact_figures_open_change`.execute(db);
  await sql`drop table contact_figures_open`.execute(db);
  await sql`drop table contact_figures_callers`.execute(db);
  await sql`drop table contact_figures_days`.execute(db);
  await sql`alter table accounts drop column repeat_window_days`.execute(db);
}
