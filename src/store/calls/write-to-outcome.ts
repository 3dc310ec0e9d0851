import type { AbortableQueryOptions, QueryResult, RawBuilder } from "kysely";
import type { Db } from "../engine/database.ts";

/**
 * Runs a call's write, which commits on its own, and answers with what it
 * did. An abort before the statement is sent (also while it waits for a
 * connection) answers at once: nothing was done. Once sent, an abort only
 * asks PostgreSQL to cancel it, and the answer is the statement's outcome:
 * either it was cancelled (or undid itself at its deadline) and nothing was
 * saved, or it was already committing and the caller is told it succeeded.
 * Kysely's own abort answers at once in both cases, so a client could be
 * told "failed" about a write that committed.
 */
export async function writeToOutcome<R>(
  db: Db,
  query: RawBuilder<R>,
  options: AbortableQueryOptions,
): Promise<QueryResult<R>> {
  const { signal } = options;
  if (signal === undefined) return query.execute(db);
  const compiled = query.compile(db);
  const executor = db.getExecutor();
  signal.throwIfAborted();
  const controlConnection = executor.provideConnection.bind(executor);
  // The signal makes the wait for a connection end at the abort.
  return executor.provideConnection(
    async (connection) => {
      signal.throwIfAborted();
      const cancel = () => {
        if (options.inflightQueryAbortStrategy !== "cancel query") return;
        // A failed cancel leaves the statement to its deadline check; the outcome is awaited either way.
        connection.cancelQuery?.(controlConnection).catch(() => {});
      };
      await connection.collectSessionInfo?.();
      signal.addEventListener("abort", cancel, { once: true });
      try {
        return await connection.executeQuery<R>(compiled);
      } finally {
        signal.removeEventListener("abort", cancel);
      }
    },
    { signal },
  );
}
