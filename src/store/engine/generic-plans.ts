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

/** As a connection's startup option (node-postgres's `options`). */
export const GENERIC_PLANS_OPTION = "-c plan_cache_mode=force_generic_plan";

/** As a statement, for a session already open (PGlite). */
export const GENERIC_PLANS_STATEMENT = "set plan_cache_mode = force_generic_plan";
