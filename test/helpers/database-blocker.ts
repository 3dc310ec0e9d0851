import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import pg from "pg";
import type { TestServer } from "./test-server.ts";

// Makes the database slow on purpose for `holdMs`, the way a real one gets
// slow: on PostgreSQL another session holds the row locks of the account's
// credit slots, which a call's billing statement must wait for; on the embedded database, whose one
// connection serves one transaction at a time, a long transaction holds it
// (idle in JavaScript: a long query would stop the event loop itself, since
// the embedded engine runs on the main thread).

export interface DatabaseBlock {
  /** Resolves once the block has been lifted, `holdMs` after it began. */
  readonly lifted: Promise<void>;
}

export async function blockDatabase(server: TestServer, accountId: string, holdMs: number): Promise<DatabaseBlock> {
  const { config } = server;
  if (config.database.kind === "postgres") {
    const client = new pg.Client({ connectionString: config.database.url });
    await client.connect();
    await client.query("begin");
    await client.query("select 1 from quota_slots where account_id = $1 for update", [accountId]);
    const lifted = sleep(holdMs).then(async () => {
      await client.query("rollback");
      await client.end();
    });
    return { lifted };
  }
  let taken!: () => void;
  const connectionTaken = new Promise<void>((resolve) => {
    taken = resolve;
  });
  const lifted = server.context.database.db.transaction().execute(async (trx) => {
    await sql`select 1`.execute(trx);
    taken();
    await sleep(holdMs);
  });
  await connectionTaken;
  return { lifted };
}
