import { type RawBuilder, sql } from "kysely";
import type { EndCallCommand } from "../../domain/call.ts";
import { type CallEndedFromStatement, callEnded, callEndedData } from "../../domain/event-types/call-ended.ts";
import {
  type IntentOpenedFromStatement,
  intentOpened,
  intentOpenedData,
} from "../../domain/event-types/intent-opened.ts";
import {
  type IntentResolvedFromStatement,
  intentResolved,
  intentResolvedData,
} from "../../domain/event-types/intent-resolved.ts";
import { setKeys } from "../event-outbox.ts";

// The events an end reports, as rows for outboxInsert, within the end's own statement. Their data is built in
// TypeScript (src/domain/event-types/) and travels as parameters; the statement sets only what it alone knows,
// from its CTEs `closed` (the call it closed) and `prior_intents` (the customer's intents of the end's names
// before it), and decides which intent events happen: intent.opened when an intent becomes open (new, or open
// again after a resolution), intent.resolved when an intent becomes resolved; then call.ended.

export interface EndEventFacts {
  readonly callId: string;
  readonly now: Date;
  readonly intents: EndCallCommand["intents"];
  readonly variables: EndCallCommand["variables"];
}

/**
 * The body of the CTE `prior_intents`: the state the end's intents had before it, and where each row is
 * (`row_id`, its ctid), for the end's update of it (src/store/calls/end-saves.ts). The customer's intents are
 * read through the index on customer_id alone: the fence keeps the names out of the lookup, which would
 * otherwise descend the primary key once per name.
 */
export function priorIntents(facts: EndEventFacts): RawBuilder<unknown> {
  return sql`
    select p.row_id, p.name, p.status, p.attempt_count from closed cross join lateral (
      select held.ctid as row_id, held.name, held.status, held.attempt_count from intents held
      where held.customer_id = closed.customer_id
      offset 0
    ) p
    where p.name = any(${facts.intents.map((i) => i.intent)}::text[])
  `;
}

/** Whether an intent saved with `status` is open: it reports intent.opened when that changes its status. */
function opens(status: string | undefined): boolean {
  return (status ?? "open") === "open";
}

/** The types of the events an end may report: call.ended, and intent.opened or intent.resolved for its intents. */
export function endEventTypes(facts: Pick<EndEventFacts, "intents">): string[] {
  const types: string[] = [callEnded.type];
  for (const { status } of facts.intents) {
    const type = opens(status) ? intentOpened.type : intentResolved.type;
    if (!types.includes(type)) types.push(type);
  }
  return types;
}

export function endEventRows(facts: EndEventFacts): RawBuilder<unknown> {
  const { callId, now, intents } = facts;
  const intentEvents = intents.map((i) =>
    opens(i.status)
      ? { type: intentOpened.type, data: intentOpenedData(callId, i.intent) }
      : { type: intentResolved.type, data: intentResolvedData(callId, i.intent, i.resolution) },
  );
  const intentFromStatement: Record<IntentOpenedFromStatement & IntentResolvedFromStatement, RawBuilder<unknown>> = {
    customer_ref: sql`closed.customer_id::text`,
    attempt_count: sql`case when i.status = 'open' then 1 when p.status = 'open' then p.attempt_count else 0 end`,
  };
  const ended = callEndedData({
    callId,
    intents,
    variables: [...facts.variables].map(([name, v]) => [name, v.value] as const),
  });
  const endedFromStatement: Record<CallEndedFromStatement, RawBuilder<unknown>> = {
    customer_ref: sql`closed.customer_id::text`,
    call_start: sql`closed.call_start`,
    call_end: sql`${now}::timestamptz`,
    duration_seconds: sql`extract(epoch from ${now}::timestamptz - closed.call_start)::float8`,
  };
  return sql`
    select i.seq::int as seq, i.type,
      ${setKeys(sql`i.data`, intentFromStatement)} as data,
      null::jsonb as data_with_values,
      closed.customer_id::text as ordering_key
    from closed cross join unnest(
      ${intents.map((i) => i.intent)}::text[],
      ${intents.map((i) => i.status ?? "open")}::text[],
      ${intentEvents.map((e) => e.type)}::text[],
      ${intentEvents.map((e) => JSON.stringify(e.data))}::jsonb[]
    ) with ordinality as i (name, status, type, data, seq)
    left join prior_intents p on p.name = i.name
    where p.status is distinct from i.status
    union all
    select 1000000, ${sql.lit(callEnded.type)}::text,
      ${setKeys(sql`${JSON.stringify(ended.names)}::jsonb`, endedFromStatement)},
      ${setKeys(sql`${JSON.stringify(ended.withValues)}::jsonb`, endedFromStatement)},
      closed.customer_id::text
    from closed
  `;
}
