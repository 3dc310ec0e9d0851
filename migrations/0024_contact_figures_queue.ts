import { type Kysely, sql } from "kysely";

// The contact figures' job found the calls ended since its cursor by reading every call started in the 24 hours
// before it (the BRIN index on call_start; call_end has none, docs/architecture.md): a day of calls read every
// 15 seconds, whatever was left to count. An end now appends its call's key to contact_figures_queue, in its
// own statement, and the job takes the oldest ends from there, so a batch reads what it counts (docs/analytics.md).
//
// contact_figures_queue: one row per end not yet counted, by its end time. The index keeps the job's read of the
// oldest ends ordered and bounded by the batch, however long the queue grows while the job is stopped.
// contact_figures_progress keeps only what the answer says of the figures: counted_through and caught_up_at.
//
// The calls ended after the old cursor, which the old job would have counted next, move to the queue here.

const statements = [
  sql`
    create table contact_figures_queue (
      account_id text not null,
      mode text not null,
      call_id text not null,
      call_end timestamptz not null
    )
  `,
  sql`create index contact_figures_queue_call_end on contact_figures_queue (call_end)`,
  sql`
    insert into contact_figures_queue (account_id, mode, call_id, call_end)
    select c.account_id, c.mode, c.call_id, c.call_end
    from calls c left join contact_figures_progress p on true
    where c.call_end is not null and c.customer_id is not null
      and (p.id is null or c.call_end > p.ended_at
        or (c.call_end = p.ended_at and p.call_id <> '' and (c.account_id, c.mode, c.call_id) > (p.account_id, p.mode, p.call_id)))
  `,
  sql`alter table contact_figures_progress rename column ended_at to counted_through`,
  sql`alter table contact_figures_progress drop column account_id, drop column mode, drop column call_id`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // The old job goes on from the oldest end still queued; with none, from where the figures are counted through.
  await sql`
    alter table contact_figures_progress add column account_id text not null default '',
      add column mode text not null default '', add column call_id text not null default ''
  `.execute(db);
  await sql`alter table contact_figures_progress rename column counted_through to ended_at`.execute(db);
  await sql`
    update contact_figures_progress
    set ended_at = least(ended_at, (select min(call_end) - interval '1 microsecond' from contact_figures_queue))
    where exists (select 1 from contact_figures_queue)
  `.execute(db);
  await sql`drop table contact_figures_queue`.execute(db);
}
