import type { Db } from "./database.ts";
import { vacuumTables } from "./vacuum.ts";

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
  // The ends of the customer's calls still queued for the figures, by call id.
  "contact_figures_queue",
  // The erased customer's events (delivered ones too), which an erasure deletes with them.
  "event_deliveries",
];

/** A vacuum of those tables (VACUUM FULL rewrites them into new files), then a checkpoint. */
export function compactErasedTables(db: Db, vacuum: "full" | "plain"): Promise<void> {
  return vacuumTables(db, TABLES, { full: vacuum === "full", checkpoint: true });
}
