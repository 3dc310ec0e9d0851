import type { EventDelivery, EventEndpoint } from "../domain/events.ts";
import type { EventDeliveryRow, EventEndpointRow } from "../store/schema.ts";

export function endpointRowToEndpoint(row: EventEndpointRow): EventEndpoint {
  return {
    endpointId: row.id,
    accountId: row.account_id,
    kind: row.kind,
    url: row.url,
    eventTypes: row.event_types,
    includeVariableValues: row.include_variable_values,
    enabled: row.enabled,
    disabledReason: row.disabled_reason ?? "",
    consecutiveFailures: row.consecutive_failures,
    createdAt: new Date(row.created_at),
  };
}

export function deliveryRowToDelivery(row: EventDeliveryRow): EventDelivery {
  return {
    deliveryId: `dlv_${row.id}`,
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state,
    attempts: row.attempts,
    responseCode: row.response_code ?? 0,
    latencyMs: row.latency_ms ?? 0,
    lastError: row.last_error ?? "",
    createdAt: new Date(row.created_at),
    nextAttemptAt: row.state === "pending" ? new Date(row.next_attempt_at) : undefined,
  };
}
