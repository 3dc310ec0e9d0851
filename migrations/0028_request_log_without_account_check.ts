import { type Kysely, sql } from "kysely";

// The request log's rows take their account from their key (src/store/request-log-repository.ts joins api_keys,
// whose own foreign key holds the account), so request_log's foreign key to accounts checked again what the join
// had just read. The check ran once per row, two rows a call: a lookup of accounts' primary key and a key-share
// lock on the account's row, the row every call's charge reads. Accounts are never deleted (no code path deletes
// one), so the cascade it carried had nothing to do; the retention sweep removes the rows after 7 days.

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table request_log drop constraint request_log_account_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table request_log add constraint request_log_account_id_fkey
      foreign key (account_id) references accounts (id) on delete cascade
  `.execute(db);
}
