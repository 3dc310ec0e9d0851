import { type Kysely, sql } from "kysely";
import { TIERS } from "../src/domain/tiers.ts";

// The tiers as a table, filled from the service's one list
// (src/domain/tiers.ts), and accounts.tier a foreign key to it, in place of a
// check constraint that repeated the list: an account cannot have a tier the
// service does not know. A tier added to the list needs a migration that
// inserts it; test/store/tiers.test.ts fails until then.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table tiers (name text primary key)`.execute(db);
  await sql`insert into tiers (name) select unnest(${[...TIERS]}::text[])`.execute(db);
  await sql`alter table accounts drop constraint accounts_tier_check`.execute(db);
  await sql`alter table accounts add constraint accounts_tier_fkey foreign key (tier) references tiers (name)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table accounts drop constraint accounts_tier_fkey`.execute(db);
  await sql`alter table accounts add constraint accounts_tier_check check (tier in ('free', 'starter', 'growth', 'scale'))`.execute(
    db,
  );
  await sql`drop table tiers`.execute(db);
}
