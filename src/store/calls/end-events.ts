import { type RawBuilder, sql } from "kysely";
import type { EndCallCommand } from "../../domain/call.ts";

// The events an end reports, as rows for outboxInsert, computed inside the
// end's own statement from its CTEs `closed` (the call it closed) and
// `prior_intents` (the customer's intents of the end's names before it):
// intent.opened when an intent becomes open (new, or open again after a
// resolution), intent.resolved when an intent becomes resolved, then call.ended.

export interface EndEventFacts {
  readonly callId: string;
  readonly now: Date;
  readonly intents: EndCallCommand["intents"];
  readonly variables: EndCallCommand["variables"];
}

/** The body of the CTE `prior_intents`: the state the end's intents had before it. */
export function priorIntents(facts: EndEventFacts): RawBuilder<unknown> {
  return sql`
    select p.name, p.status, p.attempt_count from intents p, closed
    where p.customer_id = closed.customer_id and p.name = any(${facts.intents.map((i) => i.intent)}::text[])
  `;
}

export function endEventRows(facts: EndEventFacts): RawBuilder<unknown> {
  const { now, intents } = facts;
  const variables = [...facts.variables];
  const intentList = JSON.stringify(intents.map((i) => ({ intent: i.intent, status: i.status ?? "open" })));
  const values = JSON.stringify(Object.fromEntries(variables.map(([name, v]) => [name, v.value])));
  const callEnded = sql`jsonb_build_object(
    'call_id', ${facts.callId}::text, 'customer_ref', closed.customer_id::text,
    'call_start', closed.call_start, 'call_end', ${now}::timestamptz,
    'duration_seconds', extract(epoch from ${now}::timestamptz - closed.call_start)::float8,
    'intents', ${intentList}::jsonb, 'variables', ${JSON.stringify(variables.map(([name]) => name))}::jsonb
  )`;
  return sql`
    select i.seq::int as seq,
      case when i.status = 'open' then 'intent.opened' else 'intent.resolved' end as type,
      jsonb_build_object(
        'customer_ref', closed.customer_id::text, 'call_id', ${facts.callId}::text, 'intent', i.name,
        'attempt_count', case when i.status = 'open' then 1
          when p.status = 'open' then p.attempt_count else 0 end,
        'resolution', case when i.status = 'resolved' then jsonb_strip_nulls(jsonb_build_object(
          'type', i.resolution_type, 'external_reference', i.resolution_reference)) end
      ) as data,
      null::jsonb as data_with_values,
      closed.customer_id::text as ordering_key
    from closed cross join unnest(
      ${intents.map((i) => i.intent)}::text[],
      ${intents.map((i) => i.status ?? "open")}::text[],
      ${intents.map((i) => i.resolution?.type ?? null)}::text[],
      ${intents.map((i) => i.resolution?.externalReference ?? null)}::text[]
    ) with ordinality as i (name, status, resolution_type, resolution_reference, seq)
    left join prior_intents p on p.name = i.name
    where p.status is distinct from i.status
    union all
    select 1000000, 'call.ended', ${callEnded},
      ${callEnded} || jsonb_build_object('variable_values', ${values}::jsonb),
      closed.customer_id::text
    from closed
  `;
}
