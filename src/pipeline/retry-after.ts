// The one place the Retry-After header is written, and how long each kind of
// refusal asks its client to wait. The header counts whole seconds; a refusal
// that depends on a window (rate limit, failed sign-ins) passes its own.

export const RETRY_AFTER_SECONDS = {
  /** The database is not reachable and migrated yet. */
  starting: 2,
  /** Shed by the admission control, or not answered within the method's time budget. */
  overloaded: 1,
  /** The database stopped answering in the middle of a call, or a use case reported itself unavailable. */
  unavailable: 1,
  /** The health check found the database unreachable: load balancers need not ask again at once. */
  unhealthy: 5,
} as const;

const HEADER = "retry-after";

/** The header as metadata for a ConnectError, or headers for a reply. */
export function retryAfter(seconds: number): Record<string, string> {
  return { [HEADER]: String(seconds) };
}

/** Whole seconds until a window lets the client in again, at least one. */
export function secondsUntil(retryAtMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((retryAtMs - nowMs) / 1000));
}

/** Adds the header to a response's headers. */
export function setRetryAfter(headers: Headers, seconds: number): void {
  headers.set(HEADER, String(seconds));
}
