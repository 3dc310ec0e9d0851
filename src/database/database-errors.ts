// Which failures mean "the database cannot be reached right now" (the caller
// should retry shortly: 503) rather than a bug (500). PostgreSQL reports the
// first kind with SQLSTATE classes 08 (connection exception) and 57
// (operator intervention: shutdown, statement timeout); the drivers report
// them as socket errors or as a closed pool. A write refused because the
// server has become read-only (SQLSTATE 25006: a primary demoted, or a standby
// not yet writable after its promotion) is the same: a primary is being sought.

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection error/i,
  /driver has already been destroyed/i,
  /pglite is closed/i,
  /embedded database thread stopped/i,
  /cannot use a pool after calling end/i,
];

const READ_ONLY = "25006";
/** Statement timeouts and cancelled requests (57014) say nothing of the server or of the connection. */
const CANCELLED = "57014";

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code)) return true;
    if (/^(08|57)[0-9A-Z]{3}$/.test(code)) return true;
    if (code === READ_ONLY) return true;
  }
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  return UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message));
}

/**
 * Whether the server behind this connection may be gone or no longer the
 * primary, so every connection to it is suspect: unavailable for any reason
 * but a cancelled statement (which a busy but healthy server reports too).
 */
export function isServerLost(error: unknown): boolean {
  if (!isDatabaseUnavailable(error) || (error as { code?: unknown }).code === CANCELLED) return false;
  // The pool's own wait for a free connection: the pool is busy, the server may be well.
  return !/timeout exceeded when trying to connect/i.test((error as Error).message);
}

/**
 * A write that referenced a customer deleted since it was read (SQLSTATE
 * 23503, foreign key violation): every foreign key of the schema points at
 * customers or at their calls.
 */
export function isCustomerGone(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "23503";
}

/**
 * A pooler that refuses the startup parameters the service sends without DATABASE_POOLER (PgBouncer: "unsupported
 * startup parameter: options", SQLSTATE 08P01). Not an outage: retrying cannot help.
 */
export function isStartupParameterRefused(error: unknown): boolean {
  return error instanceof Error && /unsupported startup parameter/i.test(error.message);
}
