import type { DatabaseAddress } from "./database-url.ts";

// What the engine needs of the configuration, declared here so that the engine reads nothing above it;
// src/config.ts builds these from the environment.

/**
 * "none": PostgreSQL itself, or a pooler that keeps a client's session; "session": a pooler in session mode that
 * refuses startup parameters (PgBouncer); "transaction": one in transaction mode, where nothing rests on a session.
 */
export type DatabasePooler = "none" | "session" | "transaction";

export type DatabaseTarget =
  | {
      readonly kind: "postgres";
      /** As given: one host or a list of them (database-url.ts). */
      readonly url: string;
      readonly address: DatabaseAddress;
      readonly poolSize: number;
      /** What stands between the service and PostgreSQL (docs/operations.md, Poolers). */
      readonly pooler: DatabasePooler;
    }
  | {
      readonly kind: "pglite";
      readonly dataDir: string;
      /** Where PGlite runs: a worker thread of its own, or the service's main thread. */
      readonly thread: "worker" | "main";
    };

export interface DatabaseSettings {
  readonly database: DatabaseTarget;
  readonly statementTimeoutMs: number;
}
