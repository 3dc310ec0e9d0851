import pg from "pg";
import type { PoolerCancel } from "./pooler-cancel.ts";
import { SettingsFirstQuery } from "./settings-first-query.ts";

// The pg client for a transaction-mode pooler (DATABASE_POOLER=transaction;
// PgBouncer's pool_mode = transaction): each transaction may run on another
// server connection, so nothing may rest on the session. A statement with
// parameters (every statement of a call) carries the plan settings and the
// statement timeout in its own round trip (settings-first-query.ts) and is
// parsed and planned each time: a prepared statement would be looked for on a
// server connection that never saw it. One without parameters (BEGIN, COMMIT,
// `select 1`, the migrations' DDL) is sent as it is, with the database's own
// settings: inside a transaction the settings a statement with parameters set
// hold until its end. A running statement is cancelled by the protocol's
// CancelRequest, which the pooler routes (pooler-cancel.ts).

export function transactionPoolerClient(settings: string, cancel: PoolerCancel): typeof pg.Client {
  return class TransactionPoolerClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      cancel.track(this);
    }

    // pg's query has many overloads; this forwards all of them but the one Kysely uses.
    override query(config: any, values?: any, callback?: any): any {
      if (typeof config !== "string" || !Array.isArray(values) || values.length === 0) {
        return super.query(config, values, callback);
      }
      if (typeof callback === "function") {
        super.query(new SettingsFirstQuery(settings, config, values, callback));
        return undefined;
      }
      // pg's callback form under a promise of ours, as PreparingClient does (it keeps less alive).
      return new Promise((resolve, reject) => {
        super.query(
          new SettingsFirstQuery(settings, config, values, (error, result) =>
            error ? reject(error) : resolve(result),
          ),
        );
      });
    }
  };
}
