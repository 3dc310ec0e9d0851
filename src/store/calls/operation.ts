import type { AbortableQueryOptions, InflightQueryAbortStrategy } from "kysely";

/**
 * Options for each statement of a call. A start and an end each commit with
 * their own last statement, so work nobody waits for any longer is stopped
 * statement by statement: one not yet sent is not sent (also after waiting
 * for a connection), and on PostgreSQL one that is running is cancelled,
 * which rolls it back.
 */
export function statementOptions(
  inflightAbort: InflightQueryAbortStrategy,
  signal: AbortSignal | undefined,
): AbortableQueryOptions {
  return { signal, inflightQueryAbortStrategy: inflightAbort };
}
