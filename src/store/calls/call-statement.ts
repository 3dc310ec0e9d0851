import { type AbortableQueryOptions, type QueryResult, type RawBuilder, sql } from "kysely";
import { compileOnce } from "../../database/compile-once.ts";
import type { Tenant } from "../../domain/tenant.ts";
import type { MonthlyAllowance } from "../../domain/tiers.ts";
import type { Db } from "../database.ts";

// How a call's statement is built and runs: the values it names once (below), stopped with its request,
// billed in itself, undone past its deadline, and answered with what it did.
//
// A refusal found in the middle of a statement (no credit left, an
// idempotency key already taken) must undo what the statement already wrote:
// the statement raises an error of its own SQLSTATE through refuse_statement()
// (migration 0002), and the store recognises it by that code and reports it
// as a value. What a refusal means to the caller is the use case's to decide.

export type RefusalCode = "CC402" | "CC40E" | "CC40S" | "CC408" | "CC409";

/** Why a call's statement undid itself: no credit left, its credit slot emptied meanwhile, or past its deadline. */
export type StatementRefusal = "no_credit" | "slot_emptied" | "past_deadline";

export interface Refused {
  readonly refused: StatementRefusal;
}

const REFUSALS: ReadonlyMap<unknown, StatementRefusal> = new Map<RefusalCode, StatementRefusal>([
  ["CC402", "no_credit"],
  ["CC40S", "slot_emptied"],
  ["CC408", "past_deadline"],
]);

const PAST_DEADLINE = "CC408";

/** An integer expression that raises `code` when PostgreSQL evaluates it. Built once per code: text, not parameters. */
export function refuse(code: RefusalCode, reason: string): RawBuilder<number> {
  let raised = refusals.get(code);
  if (raised === undefined) {
    raised = sql`refuse_statement(${sql.lit(code)}, ${sql.lit(reason)})`;
    refusals.set(code, raised);
  }
  return raised;
}

const refusals = new Map<RefusalCode, RawBuilder<number>>();

/** Whether `error` is a statement undoing itself with `code`. */
export function isRefusal(error: unknown, code: RefusalCode): boolean {
  return (error as { code?: unknown } | null)?.code === code;
}

/** Runs a call's statement; one that undid itself for want of credit or time is reported as such. */
export async function refusedAsValue<T>(work: () => Promise<T>): Promise<T | Refused> {
  try {
    return await work();
  } catch (error) {
    const refused = REFUSALS.get((error as { code?: unknown } | null)?.code);
    if (refused === undefined) throw error;
    return { refused };
  }
}

/**
 * A column that undoes the statement when PostgreSQL reaches it after
 * `deadline` (epoch ms, real time). Placed last, it runs after the statement
 * waited for any lock, so a call whose budget ran out while it waited cannot
 * commit later; the guard cancels the statement at the deadline and answers
 * with its outcome (see writeToOutcome below).
 */
export function deadlineColumn(deadline: number | undefined): RawBuilder<unknown> {
  if (deadline === undefined) return sql`null`;
  return sql`case when clock_timestamp() > ${new Date(deadline)}::timestamptz then ${refuse(PAST_DEADLINE, "past the deadline")} end`;
}

/**
 * The bill of one operation, taken by the operation's own statement: the
 * credit is spent only if the operation's writes commit, and an operation
 * that finds no credit left writes nothing. Plain data: what the statement
 * did comes back in its result.
 */
export interface Charge {
  readonly accountId: string;
  readonly allowance: MonthlyAllowance;
  /**
   * Whether the statement may take the credit from any of the account's slots, reading them all when its random
   * one is empty. Without it the random slot is the only one: a statement that finds it empty undoes itself as
   * `slot_emptied`, and runs again with it (src/calls/call-write.ts). Most calls find credit in their slot, and
   * the parts that look further are then set up on every execution without running (store/billing/charge.ts).
   */
  readonly fromAnySlot?: boolean;
}

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
  const compiled = compileOnce(db, query);
  if (signal === undefined) return db.executeQuery(compiled);
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

// Values a call's statement names in many places (the tenant's account and
// mode, the quota period, the charged account), each built once as a node
// that compileOnce turns into one parameter wherever the statement embeds it.
// A statement is built synchronously, so remembering the value for the last
// owner asked about (the request's tenant, its moment, its charge) gives every
// part of one statement the same node without passing it down. A WeakMap keyed
// by those per-request objects would do the same but keep them alive through
// young collections (V8 clears a WeakMap's entries only in a full collection),
// promoting every request's to the old generation.

/** `compute` for the last key asked about; computed afresh when the key is another. */
export function lastOf<K, V>(compute: (key: K) => V): (key: K) => V {
  let lastKey: K | undefined;
  let lastValue: V | undefined;
  return (key) => {
    if (lastKey !== key || lastValue === undefined) {
      lastValue = compute(key);
      lastKey = key;
    }
    return lastValue;
  };
}

export interface TenantParameters {
  readonly accountId: RawBuilder<string>;
  readonly mode: RawBuilder<string>;
}

export const tenantParameters: (tenant: Tenant) => TenantParameters = lastOf((tenant) => ({
  accountId: sql.val(tenant.accountId),
  mode: sql.val(tenant.mode),
}));
