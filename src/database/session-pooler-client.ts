import pg from "pg";
import { PreparingClient } from "./preparing-client.ts";

// The pg client for a session-mode pooler (DATABASE_POOLER=session;
// PgBouncer's pool_mode = session): a client keeps its server connection for
// as long as it is connected, so prepared statements hold as they do on
// PostgreSQL itself. Only the startup message differs: PgBouncer refuses the
// `options` and `statement_timeout` parameters ("unsupported startup
// parameter"), so the same settings are set by a statement once connected,
// before the pool hands the client out. The pooler's reset (DISCARD ALL) takes
// them and the statements away when the client disconnects.

export function sessionPoolerClient(settings: string, prepareStatements: boolean): typeof pg.Client {
  const Base: typeof pg.Client = prepareStatements ? PreparingClient : pg.Client;
  return class SessionPoolerClient extends Base {
    // pg-pool connects with a callback; the promise form is kept for everyone else.
    override connect(callback?: any): any {
      const connected = super.connect().then(async () => {
        try {
          await this.query(settings);
        } catch (error) {
          await this.end().catch(() => {});
          throw error;
        }
        return this;
      });
      if (callback === undefined) return connected;
      connected.then(
        (client) => callback(null, client),
        (error: Error) => callback(error),
      );
      return undefined;
    }
  };
}
