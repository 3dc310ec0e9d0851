import type { Clock } from "../domain/clock.ts";
import { type DeliverySettings, nextAttemptAt, shouldDisable } from "../domain/events.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Db } from "../store/engine/database.ts";
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  disableFailingEndpoint,
  recordDelivered,
  recordFailed,
} from "../store/event-delivery-repository.ts";
import { postEvent } from "./post-event.ts";
import { signatureHeaders } from "./sign-event.ts";

// The background job that empties the outbox, off every request's path: each
// tick claims as many due deliveries as it has free slots, sends them, and
// records each outcome. An instance that dies mid-delivery leaves its claims
// leased; another instance (or this one, restarted) sends them when the lease
// ends: at least once, never lost.

export type AttemptOutcome = "delivered" | "retrying" | "failed";

export interface DeliveryObserver {
  attempted(outcome: AttemptOutcome, latencyMs: number): void;
  endpointDisabled(endpointId: string): void;
  error(error: unknown): void;
}

export interface DeliveryWorker {
  stop(): Promise<void>;
}

export function startDeliveryWorker(
  db: Db,
  clock: Clock,
  /** Opens the endpoints' sealed signing secrets. */
  secrets: Pick<SecretBox, "open">,
  settings: DeliverySettings,
  observer: DeliveryObserver,
): DeliveryWorker {
  const inFlight = new Set<Promise<void>>();
  const shutdown = new AbortController();
  let claiming: Promise<void> | undefined;

  const tick = async () => {
    if (claiming !== undefined || shutdown.signal.aborted) return;
    const free = settings.concurrency - inFlight.size;
    if (free <= 0) return;
    claiming = claimAndSend(free);
    try {
      await claiming;
    } finally {
      claiming = undefined;
    }
  };

  const claimAndSend = async (free: number) => {
    const now = clock.now();
    // Past the lease, the delivery is someone else's to try: it outlives the request's own deadline.
    const leaseUntil = new Date(now.getTime() + settings.timeoutMs + 5000);
    const claimed = await claimDueDeliveries(db, now, leaseUntil, free);
    for (const delivery of claimed) {
      const running = deliver(delivery).catch(observer.error);
      inFlight.add(running);
      void running.finally(() => {
        inFlight.delete(running);
        // A full claim suggests more are due: look again without waiting for the timer.
        if (claimed.length === free) void tick().catch(observer.error);
      });
    }
  };

  const deliver = async (delivery: ClaimedDelivery) => {
    const sentAt = clock.now();
    const started = performance.now();
    const outcome = await postEvent(
      delivery.url,
      signatureHeaders(
        delivery.eventId,
        sentAt,
        delivery.payload,
        delivery.secrets.map((sealed) => secrets.open(sealed)),
      ),
      delivery.payload,
      {
        kind: delivery.kind,
        timeoutMs: settings.timeoutMs,
        maxResponseBytes: settings.maxResponseBytes,
        signal: shutdown.signal,
      },
    );
    // Cut short by shutdown: the lease hands it to whoever runs next.
    if (shutdown.signal.aborted) return;
    const latencyMs = Math.round(performance.now() - started);
    const now = clock.now();
    const record = {
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      now,
      responseCode: outcome.status,
      latencyMs,
      error: outcome.ok ? null : outcome.error,
    };
    if (outcome.ok) {
      await recordDelivered(db, record, delivery.endpointId);
      observer.attempted("delivered", latencyMs);
      return;
    }
    const retryAt = nextAttemptAt(now, delivery.attempts, settings.retryDelaysMs);
    const run = await recordFailed(db, record, delivery.endpointId, retryAt);
    observer.attempted(retryAt === undefined ? "failed" : "retrying", latencyMs);
    if (run !== undefined && shouldDisable(run.consecutiveFailures, run.failingSince, now, settings.disableAfter)) {
      await disableFailingEndpoint(
        db,
        delivery.endpointId,
        `Disabled after ${run.consecutiveFailures} failed deliveries in a row since ${run.failingSince.toISOString()}`,
      );
      observer.endpointDisabled(delivery.endpointId);
    }
  };

  const timer = setInterval(() => void tick().catch(observer.error), settings.pollMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      shutdown.abort();
      await claiming?.catch(() => {});
      await Promise.allSettled([...inFlight]);
    },
  };
}
