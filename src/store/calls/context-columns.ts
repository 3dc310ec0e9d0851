import { type RawBuilder, sql } from "kysely";

/**
 * The columns that give a call the customer's context: open intents (newest
 * first) and live variables, read only when `readContext` (a customer the
 * caller is not sure of gets nothing, so the stored context stays private).
 */
export function contextColumns(customer: RawBuilder<unknown> | string, now: Date, readContext: boolean) {
  return sql`
      coalesce((
        select json_agg(json_build_object('intent', name, 'attemptCount', attempt_count) order by updated_at desc, name)
        from intents where customer_id = ${customer} and status = 'open' and ${readContext}
      ), '[]') as open_intents,
      coalesce((
        select json_object_agg(name, json_build_object('value', value, 'source', source, 'ttlSeconds', ttl_seconds) order by name)
        from variables where customer_id = ${customer} and expires_at > ${now} and ${readContext}
      ), '{}') as variables`;
}
