import type { PostgresClientConstructor } from "kysely";
import pg from "pg";
import type { DatabasePooler } from "./database-settings.ts";
import { planSettingsForTransaction, planSettingsOption, planSettingsStatement } from "./plan-settings.ts";
import { createPoolerCancel } from "./pooler-cancel.ts";
import { PreparingClient } from "./preparing-client.ts";
import { sessionPoolerClient } from "./session-pooler-client.ts";
import { transactionPoolerClient } from "./transaction-pooler-client.ts";

// How the pool's clients carry the plan settings and the statement timeout,
// and whether they prepare statements, for what stands between the service
// and PostgreSQL (DATABASE_POOLER; docs/operations.md, Poolers).

export interface StatementOptions {
  readonly prepareStatements: boolean;
  readonly genericPlans: boolean;
}

export interface PgClientOptions {
  readonly pool: pg.PoolConfig;
  /** What Kysely cancels a running statement with; unset: a client of the pool's (`select pg_cancel_backend`). */
  readonly controlClient?: PostgresClientConstructor;
}

export function pgClientOptions(
  pooler: DatabasePooler,
  statementTimeoutMs: number,
  { prepareStatements, genericPlans }: StatementOptions,
): PgClientOptions {
  switch (pooler) {
    case "none":
      return {
        pool: {
          // In the startup message: no round trip of their own.
          statement_timeout: statementTimeoutMs,
          // A DATABASE_URL's own `options` parameter takes the place of this one.
          options: planSettingsOption(genericPlans),
          Client: prepareStatements ? PreparingClient : pg.Client,
        },
      };
    case "session": {
      const settings = planSettingsStatement(genericPlans, statementTimeoutMs);
      return { pool: { Client: sessionPoolerClient(settings, prepareStatements) } };
    }
    case "transaction": {
      const cancel = createPoolerCancel();
      const settings = planSettingsForTransaction(genericPlans, statementTimeoutMs);
      return { pool: { Client: transactionPoolerClient(settings, cancel) }, controlClient: cancel.ControlClient };
    }
  }
}
