// The settings every session of the service plans its statements with. Every
// statement a call sends is a lookup by key, written so that its plan can only
// probe: each table is reached by equality on a unique key, or on one
// customer's rows, inside a fence (a LATERAL subquery or OFFSET 0) that keeps
// PostgreSQL from turning the probe into a scan joined afterwards. These two
// settings do the rest, whatever the statistics say (docs/architecture.md,
// "Plans that cannot degrade"):
//
// - No sequential scan where an index can do. A table analyzed while empty is
//   recorded as 0 rows in 0 pages; a plan made then reads it whole, cheaper on
//   paper than any index, and keeps reading it whole as it grows. PostgreSQL
//   still scans a table that has no usable index (the purges, the dashboard's
//   lists of small tables): `enable_seqscan = off` only prices the scan as a
//   last resort.
// - One generic plan per prepared statement. Left to itself ("auto") the plan
//   cache kept planning the candidate lookup afresh at up to two executions in
//   three: a generic plan reckons an unnest of a parameter at ten rows, so it
//   never looked cheap enough, though it is the same plan. 0.70-0.87 x the
//   database's CPU per call in same-run A/Bs on PostgreSQL
//   (docs/performance-log.md, "One plan per statement"). Safe only because the
//   plan cannot degrade: it is made once per connection, on the tables as they
//   were then.

const PLAN_SETTINGS = { enable_seqscan: "off", plan_cache_mode: "force_generic_plan" } as const;

/** `genericPlans: false` leaves the plan cache to choose, for the benchmark's A/B. */
function settings(genericPlans: boolean): [string, string][] {
  return Object.entries(PLAN_SETTINGS).filter(([name]) => genericPlans || name !== "plan_cache_mode");
}

/** As a connection's startup option (node-postgres's `options`). */
export function planSettingsOption(genericPlans: boolean): string {
  return settings(genericPlans)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(" ");
}

/** As statements, for a session already open (PGlite; a session-mode pooler, with the statement timeout). */
export function planSettingsStatement(genericPlans: boolean, statementTimeoutMs?: number): string {
  return withTimeout(settings(genericPlans), statementTimeoutMs)
    .map(([name, value]) => `set ${name} = ${value};`)
    .join(" ");
}

/**
 * As one statement that sets them for the current transaction only (set_config's is_local), for a
 * transaction-mode pooler, where a session's settings would stay behind on a server connection another client
 * uses next. It returns a row rather than warn as SET LOCAL does outside BEGIN (settings-query.ts).
 */
export function planSettingsForTransaction(genericPlans: boolean, statementTimeoutMs: number): string {
  const calls = withTimeout(settings(genericPlans), statementTimeoutMs).map(
    ([name, value]) => `set_config('${name}', '${value}', true)`,
  );
  return `select ${calls.join(", ")}`;
}

function withTimeout(entries: [string, string][], statementTimeoutMs: number | undefined): [string, string][] {
  return statementTimeoutMs === undefined ? entries : [...entries, ["statement_timeout", `${statementTimeoutMs}`]];
}
