import pg from "pg";
import type { PoolerCancel } from "./pooler-cancel.ts";
import { SettingsQuery } from "./settings-query.ts";

// The pg client for a transaction-mode pooler (DATABASE_POOLER=transaction;
// PgBouncer's pool_mode = transaction): each transaction may run on another
// server connection, so nothing may rest on the session. The plan settings and
// the statement timeout travel with the statements (settings-query.ts):
// - a statement with parameters outside a transaction (every statement of a
//   call) carries them in its own round trip, and is parsed and planned each
//   time: a prepared statement would be looked for on a server connection that
//   never saw it;
// - BEGIN carries them for the whole transaction, so the statements inside it
//   go as they are, and a SET LOCAL of the transaction's own still wins;
// - any other statement without parameters (`select 1`, the migrations' DDL,
//   VACUUM) is sent as it is, with the database's own settings.
// A running statement is cancelled by the protocol's CancelRequest, which the
// pooler routes (pooler-cancel.ts).

const BEGIN = /^\s*(begin|start\s+transaction)\b/i;

export function transactionPoolerClient(settings: string, cancel: PoolerCancel): typeof pg.Client {
  return class TransactionPoolerClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      cancel.track(this);
    }

    // pg's query has many overloads; this forwards all of them but the plain text and values Kysely sends.
    override query(config: any, values?: any, callback?: any): any {
      const order = typeof config === "string" ? orderFor(config, values, this.getTransactionStatus()) : undefined;
      if (order === undefined) return super.query(config, values, callback);
      const params = Array.isArray(values) ? values : [];
      if (typeof callback === "function") {
        super.query(new SettingsQuery(settings, order, config, params, callback));
        return undefined;
      }
      // pg's callback form under a promise of ours, as PreparingClient does (it keeps less alive).
      return new Promise((resolve, reject) => {
        super.query(
          new SettingsQuery(settings, order, config, params, (error, result) =>
            error ? reject(error) : resolve(result),
          ),
        );
      });
    }
  };
}

/** Where the settings go with `text`, if at all; `status` is the session's: I idle, T in a transaction, E failed. */
function orderFor(text: string, values: unknown, status: string | null): "before" | "after" | undefined {
  const withParameters = Array.isArray(values) && values.length > 0;
  if (!withParameters) return BEGIN.test(text) ? "after" : undefined;
  return status === "T" || status === "E" ? undefined : "before";
}
