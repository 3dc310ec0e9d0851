import type { AbortableQueryOptions, QueryResult, RawBuilder } from "kysely";
import type { Charge } from "../billing/charge.ts";
import { type Refused, refusedAsValue } from "../billing/refusal.ts";
import type { Db } from "../engine/database.ts";

/** How a call's statement runs: stopped with its request, billed in itself, and undone past its deadline. */
export interface CallStatement {
  /** The request's signal, and what stops a statement already sent (see createDatabase). */
  readonly options: AbortableQueryOptions;
  readonly charge?: Charge;
  /** Epoch ms (real time) after which the statement must not commit: its client was already answered. */
  readonly deadline?: number;
}

/**
 * Runs a call's write, which commits on its own, and answers with what it
 * did: its rows, or why it undid itself (no credit, past its deadline). An
 * abort before the statement is sent (also while it waits for a
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
  statement: CallStatement,
): Promise<QueryResult<R> | Refused> {
  return refusedAsValue(() => execute(db, query, statement.options));
}

async function execute<R>(db: Db, query: RawBuilder<R>, options: AbortableQueryOptions): Promise<QueryResult<R>> {
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
