import { EVENT_TYPE_DEFINITIONS } from "./event-types/event-types.ts";
import type { Mode } from "./tenant.ts";

// The events the service sends to an account's endpoints (docs/events.md):
// their names (each type's data in its own module, event-types/), the envelope every one travels in, and the rules of delivery
// (the retry schedule, when an endpoint is disabled). Pure: the store writes
// the rows, the worker sends them.

/** The types endpoints subscribe to, one module each in event-types/ (registered in event-types/event-types.ts). */
export const EVENT_TYPES = EVENT_TYPE_DEFINITIONS.map((definition) => definition.type);
export type EventType = (typeof EVENT_TYPE_DEFINITIONS)[number]["type"];

/** Sent only by "send a test event", to the one endpoint, whatever types it receives. */
export const TEST_EVENT_TYPE = "endpoint.test";

/** The payloads' version, in every envelope: a breaking change to a payload gets a new one. */
export const EVENTS_API_VERSION = "2026-11-01";

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export interface EventEnvelope {
  readonly id: string;
  readonly type: string;
  /** RFC 3339, when the change happened. */
  readonly timestamp: string;
  readonly api_version: string;
  readonly account_id: string;
  /** The data kind: "test" for test keys' data, "prod" for production data. */
  readonly mode: Mode;
  readonly data: Record<string, unknown>;
}

export function eventEnvelope(
  id: string,
  type: string,
  at: Date,
  tenant: { accountId: string; mode: Mode },
  data: Record<string, unknown>,
): EventEnvelope {
  return { id, type, ...envelopeBase(at, tenant), data };
}

/** What an envelope holds besides its event: the same for every event of one change. */
export function envelopeBase(
  at: Date,
  tenant: { accountId: string; mode: Mode },
): Omit<EventEnvelope, "id" | "type" | "data"> {
  return {
    timestamp: at.toISOString(),
    api_version: EVENTS_API_VERSION,
    account_id: tenant.accountId,
    mode: tenant.mode,
  };
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The wait after each failed attempt: attempt 1 is immediate, attempt n + 1
 * comes RETRY_DELAYS_MS[n - 1] after attempt n fails. 15 attempts, the last
 * about 82.7 hours (3 days and 11 hours) after the first; after it, the
 * delivery has failed. docs/events.md states these figures and
 * test/domain/events.test.ts pins them: change the three together.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  12 * HOUR,
  12 * HOUR,
  12 * HOUR,
  12 * HOUR,
  12 * HOUR,
];

/** When to try again after `attempts` failed attempts; undefined when the schedule is spent. */
export function nextAttemptAt(now: Date, attempts: number, delays: readonly number[]): Date | undefined {
  const delay = delays[attempts - 1];
  return delay === undefined ? undefined : new Date(now.getTime() + delay);
}

/**
 * An endpoint is disabled when its deliveries have failed this many times in
 * a row, the first of them at least DISABLE_AFTER_MS ago: a day of nothing
 * but failures, not one bad minute of a busy account.
 */
/** How long a delivered or failed delivery (its payload included) is kept for the delivery log and redelivery. */
export const FINISHED_DELIVERY_RETENTION_DAYS = 30;

export const DISABLE_AFTER_FAILURES = 10;
export const DISABLE_AFTER_MS = 24 * HOUR;

export function shouldDisable(
  consecutiveFailures: number,
  failingSince: Date,
  now: Date,
  rule: { failures: number; afterMs: number },
): boolean {
  return consecutiveFailures >= rule.failures && now.getTime() - failingSince.getTime() >= rule.afterMs;
}

/** Why an endpoint was disabled, as its owner reads it on the Events page and in the CLI: "… since 2026-11-25 04:10 UTC". */
export function disabledForFailures(consecutiveFailures: number, failingSince: Date): string {
  const iso = failingSince.toISOString();
  return `Disabled after ${consecutiveFailures} failed deliveries in a row since ${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** credits.low is sent when this share of the month's quota has been used. */
export const CREDITS_LOW_THRESHOLDS = [80, 100] as const;

/**
 * The most credits left at which `threshold` % of `allowance` is used, in
 * whole numbers (no rounding of a percentage); undefined for no allowance.
 * The sweep compares stored credits with it in SQL, so both find the same.
 */
export function creditsLeftAtThreshold(allowance: number, threshold: number): number | undefined {
  if (allowance <= 0) return undefined;
  return Math.floor((allowance * (100 - threshold)) / 100);
}

/** The thresholds crossed once `left` of `allowance` credits remain, highest first. */
export function creditsLowCrossed(left: number, allowance: number): number[] {
  return CREDITS_LOW_THRESHOLDS.filter((threshold) => {
    const atMost = creditsLeftAtThreshold(allowance, threshold);
    return atMost !== undefined && Math.max(left, 0) <= atMost;
  }).reverse();
}

/** How an instance delivers (config.ts reads them from EVENTS_*). */
export interface DeliverySettings {
  readonly pollMs: number;
  /** Deliveries in flight at once on this instance. */
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly retryDelaysMs: readonly number[];
  readonly disableAfter: { readonly failures: number; readonly afterMs: number };
}

/** An endpoint as the admin API and the dashboard show it; its secret never appears here. */
export interface EventEndpoint {
  readonly endpointId: string;
  readonly accountId: string;
  readonly kind: Mode;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly includeVariableValues: boolean;
  readonly enabled: boolean;
  /** Why it is disabled (by hand, or after a run of failures); empty when enabled. */
  readonly disabledReason: string;
  readonly consecutiveFailures: number;
  readonly createdAt: Date;
}

export interface EventDelivery {
  readonly deliveryId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly state: "pending" | "delivered" | "failed";
  readonly attempts: number;
  /** Of the last attempt; 0 when none answered. */
  readonly responseCode: number;
  readonly latencyMs: number;
  readonly lastError: string;
  readonly createdAt: Date;
  readonly nextAttemptAt: Date | undefined;
}
