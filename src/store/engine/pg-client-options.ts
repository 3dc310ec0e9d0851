import pg from "pg";
import type { DatabasePooler } from "../../config.ts";
import { planSettingsForTransaction, planSettingsOption, planSettingsStatement } from "./plan-settings.ts";
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

export function pgClientOptions(
  pooler: DatabasePooler,
  statementTimeoutMs: number,
  { prepareStatements, genericPlans }: StatementOptions,
): pg.PoolConfig {
  switch (pooler) {
    case "none":
      return {
        // In the startup message: no round trip of their own.
        statement_timeout: statementTimeoutMs,
        // A DATABASE_URL's own `options` parameter takes the place of this one.
        options: planSettingsOption(genericPlans),
        Client: prepareStatements ? PreparingClient : pg.Client,
      };
    case "session":
      return {
        Client: sessionPoolerClient(planSettingsStatement(genericPlans, statementTimeoutMs), prepareStatements),
      };
    case "transaction":
      return { Client: transactionPoolerClient(planSettingsForTransaction(genericPlans, statementTimeoutMs)) };
  }
}
