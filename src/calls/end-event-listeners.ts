import { LRUCache } from "lru-cache";
import type { Clock } from "../domain/clock.ts";
import type { Tenant } from "../domain/tenant.ts";

/**
 * Which ends this instance writes with their events at once: those of a tenant
 * whose end lately found an event endpoint taking them. Every other end is
 * written without its events, by a statement that undoes itself when an
 * enabled endpoint of the tenant takes one of the end's event types, and then
 * runs again with them (src/calls/end-call.ts, src/store/calls/record-end.ts).
 * So what is remembered here only decides which statement goes first, never
 * whether an event is written: an endpoint created a moment ago, on this
 * instance or another, is in the end's own snapshot.
 *
 * Why: the events' part of the end's statement (the outbox's insert, the
 * events' rows and their JSON) is a fifth of its plan, which PostgreSQL sets
 * up on every execution, and most accounts have no endpoint.
 */
export interface EndEventListeners {
  /** Whether `tenant`'s ends go with their events first: one of its ends found a listener within the last minute. */
  expected(tenant: Tenant): boolean;
  /** An end of `tenant` was undone because an endpoint of the tenant takes its events. */
  found(tenant: Tenant): void;
}

/**
 * A tenant is remembered for a minute after its last end that found a listener: its next end then tries without
 * its events again (one undone statement a minute for a tenant with endpoints), so a tenant whose endpoints were
 * removed or disabled goes back to the lean statement.
 */
const REMEMBERED_MS = 60_000;
/** The most tenants remembered at once; past it the least lately found is forgotten (its ends only cost more). */
const MOST_REMEMBERED = 10_000;

export function createEndEventListeners(clock: Clock): EndEventListeners {
  // Aged on the service's clock, the one the calls are written with.
  const remembered = new LRUCache<string, true>({
    max: MOST_REMEMBERED,
    ttl: REMEMBERED_MS,
    ttlResolution: 0,
    perf: { now: () => clock.now().getTime() },
  });
  const keyOf = (tenant: Tenant) => `${tenant.mode}:${tenant.accountId}`;
  return {
    expected: (tenant) => remembered.size > 0 && remembered.has(keyOf(tenant)),
    found: (tenant) => {
      remembered.set(keyOf(tenant), true);
    },
  };
}
