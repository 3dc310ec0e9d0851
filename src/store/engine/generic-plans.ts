// Each statement is prepared once per connection (preparing-client.ts,
// preparing-pglite.ts), and PostgreSQL's plan cache then decides per execution
// whether to reuse the statement's generic plan or plan it afresh for the
// values at hand. Left to itself ("auto") it kept planning the candidate
// lookup afresh at up to two executions in three: a generic plan reckons an
// unnest of a parameter at ten rows, so it never looked cheap enough, though
// it is the same plan. Every statement the service sends is a lookup by key,
// so the plan cache is told to keep one plan per statement: 0.70-0.87 x
// the database's CPU per call in same-run A/Bs on PostgreSQL
// (docs/performance-log.md, "One plan per statement").

/**
 * How long a connection keeps the plans it made. A generic plan is made for
 * the tables as they are when its statement first runs on a connection, and
 * PostgreSQL makes it again only when a table's statistics change, which is
 * autovacuum's analyze as a table grows. Where none comes (a server with
 * autovacuum off; the embedded database, which has no autovacuum, after an
 * erasure's vacuum recorded its tables small), a plan made on a small table
 * reads it whole on every call, for as long as the connection lives, and the
 * cost grows with the table (docs/performance-log.md, "Plans made on empty
 * tables"). So plans are made again this often: PostgreSQL's pooled
 * connections are replaced (database.ts), the embedded session discards its
 * plans (preparing-pglite.ts). A new plan reads the table's size as it is then.
 */
export const PLAN_LIFETIME_MS = 300_000;

/** As a connection's startup option (node-postgres's `options`). */
export const GENERIC_PLANS_OPTION = "-c plan_cache_mode=force_generic_plan";

/** As a statement, for a session already open (PGlite). */
export const GENERIC_PLANS_STATEMENT = "set plan_cache_mode = force_generic_plan";
