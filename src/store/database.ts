import type { Kysely } from "kysely";
import {
  createDatabase as createEngine,
  type DatabaseOptions,
  type Database as EngineDatabase,
} from "../database/database.ts";
import type { DatabaseSettings } from "../database/database-settings.ts";
import type { Schema } from "./schema.ts";

// The database as the layers above the store meet it: the handle every repository takes, typed with our tables,
// and how to read a failure of it. The engine beneath (src/database/) knows no table; only the store imports it,
// besides the process's start-up (main, server, config, the CLI), which opens, migrates and checks it.

export type Db = Kysely<Schema>;
export type Database = EngineDatabase<Schema>;
export type { DatabaseOptions, PoolStats } from "../database/database.ts";
export { isCustomerGone, isDatabaseUnavailable } from "../database/database-errors.ts";

export function createDatabase(config: DatabaseSettings, options?: DatabaseOptions): Promise<Database> {
  return createEngine<Schema>(config, options);
}
