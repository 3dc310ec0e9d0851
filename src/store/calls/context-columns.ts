import { type RawBuilder, sql } from "kysely";
import type { OpenIntent, RecentCall, StoredVariable } from "../../domain/call.ts";
import { RECENT_CALLS } from "../../domain/limits.ts";

/** What a read of the customer's context shares. */
export interface ContextShare {
  /** Read anything at all (a customer the caller is not sure of gets nothing, so the context stays private). */
  readonly readContext: boolean;
  /** Include the variables saved with requires_verification; otherwise only their names, as held back. */
  readonly verified: boolean;
}

/**
 * The columns that give a call the customer's context: open intents (newest
 * first), live variables with the names of those held back from a caller not
 * verified (one read of the customer's variables for both), and the latest
 * calls that ended with a summary (the latest started first: a few entries of
 * a partial index, calls_customer_summaries, keyed on the start, which an end
 * never changes, so an end without a summary rewrites its row in place).
 */
export function contextColumns(customer: RawBuilder<unknown> | string, now: Date, share: ContextShare) {
  const { readContext } = share;
  return sql`
      ${openIntentsAndVariables(customer, now, share)},
      coalesce((
        select json_agg(json_build_object('callStart', call_start, 'callEnd', call_end,
          'intents', coalesce(intents, '[]'), 'summary', summary) order by call_start desc)
        from (
          select call_start, call_end, intents, summary from calls
          where customer_id = ${customer} and summary is not null and ${readContext}
          order by call_start desc limit ${RECENT_CALLS}
        ) latest
      ), '[]') as recent_calls`;
}

/** The customer's open intents and variables alone (the customer record lists its calls itself). */
export function openIntentsAndVariables(customer: RawBuilder<unknown> | string, now: Date, share: ContextShare) {
  const { readContext, verified } = share;
  return sql`
      coalesce((
        select json_agg(json_build_object('intent', name, 'attemptCount', attempt_count) order by updated_at desc, name)
        from intents where customer_id = ${customer} and status = 'open' and ${readContext}
      ), '[]') as open_intents,
      (
        select json_build_object(
          'shared', coalesce(json_object_agg(name, json_build_object('value', value, 'source', source,
            'ttlSeconds', ttl_seconds, 'requiresVerification', requires_verification) order by name)
            filter (where ${verified} or not requires_verification), '{}'),
          'heldBack', coalesce(json_agg(name order by name) filter (where not ${verified} and requires_verification), '[]'))
        from variables where customer_id = ${customer} and expires_at > ${now} and ${readContext}
      ) as variables`;
}

/** The variables column: those shared, and the names of those held back. */
export interface VariablesJson {
  readonly shared: Record<string, StoredVariable>;
  readonly heldBack: string[];
}

/** A recent call as the context columns return it (JSON: timestamps as text). */
export interface RecentCallJson {
  readonly callStart: string;
  readonly callEnd: string;
  readonly intents: { intent: string; status: "open" | "resolved" }[];
  readonly summary: string;
}

/** The context columns' row, read back in the domain's terms. */
export interface ContextRow {
  readonly open_intents: OpenIntent[];
  readonly variables: VariablesJson;
  readonly recent_calls: RecentCallJson[];
}

export function contextOf(row: ContextRow): CustomerContext {
  return {
    openIntents: row.open_intents,
    variables: row.variables.shared,
    heldBackVariables: row.variables.heldBack,
    recentCalls: row.recent_calls.map((call) => ({
      callStart: new Date(call.callStart),
      callEnd: new Date(call.callEnd),
      intents: call.intents,
      summary: call.summary,
    })),
  };
}

/** The context of a start that shares none (a new caller, or one the match says to ignore): what the columns read then. */
export function noContext(): CustomerContext {
  return { openIntents: [], variables: {}, heldBackVariables: [], recentCalls: [] };
}

export interface CustomerContext {
  readonly openIntents: OpenIntent[];
  readonly variables: Record<string, StoredVariable>;
  readonly heldBackVariables: string[];
  readonly recentCalls: RecentCall[];
}
