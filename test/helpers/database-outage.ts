import pg from "pg";
import type { TestServer } from "./test-server.ts";

// Takes the server's database away until `restore()`, the way an outage
// looks from the service. On PostgreSQL the database stops accepting
// connections and the server's are ended; the embedded database has no
// connections to end, so its one connection is held (as a stuck transaction
// would hold it) and every statement waits.

export interface DatabaseOutage {
  restore(): Promise<void>;
}

export async function takeDatabaseAway(server: TestServer): Promise<DatabaseOutage> {
  const { database } = server.config;
  if (database.kind === "postgres") {
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: database.url.replace(/\/[^/]*$/, "/postgres") });
    await admin.connect();
    await admin.query(`alter database "${name}" with allow_connections false`);
    await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [name]);
    return {
      async restore() {
        await admin.query(`alter database "${name}" with allow_connections true`);
        await admin.end();
      },
    };
  }
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let taken!: () => void;
  const connectionTaken = new Promise<void>((resolve) => {
    taken = resolve;
  });
  const held = server.context.database.db.transaction().execute(async () => {
    taken();
    await released;
  });
  await connectionTaken;
  return {
    async restore() {
      release();
      await held;
    },
  };
}
