import { sql } from "kysely";
import type { Db } from "./database.ts";

// The tables an erasure leaves dead versions of the customer in, and the statements that remove them from the
// disk; when they run is src/jobs/erasure-compaction.ts's decision.

const TABLES = [
  "customers",
  "customer_identifiers",
  "customer_dnis",
  "customer_aliases",
  "calls",
  "intents",
  "variables",
  "idempotency_keys",
  // What the contact figures kept of the customer to count their next call (docs/analytics.md).
  "contact_figures_callers",
  "contact_figures_issues",
  // The erased customer's events (delivered ones too), which an erasure deletes with them.
  "event_deliveries",
];

/**
 * A vacuum of those tables (VACUUM FULL rewrites them into new files), then a checkpoint. On one connection,
 * outside any transaction (VACUUM refuses one), without the statement timeout calls have: a vacuum of large
 * tables may take longer.
 */
export function compactErasedTables(db: Db, vacuum: "full" | "plain"): Promise<void> {
  return db.connection().execute(async (connection) => {
    await sql`set statement_timeout = 0`.execute(connection);
    try {
      await sql.raw(`vacuum ${vacuum === "full" ? "full " : ""}${TABLES.join(", ")}`).execute(connection);
      await sql`checkpoint`.execute(connection);
    } finally {
      await sql`reset statement_timeout`.execute(connection);
    }
  });
}
