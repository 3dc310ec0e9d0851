import type { Clock } from "../domain/clock.ts";
import { type DeliverySettings, disabledForFailures, nextAttemptAt, shouldDisable } from "../domain/events.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Db } from "../store/database.ts";
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

/** An endpoint's share of the worker's slots while others have due work: a quarter (4 of the default 16). */
const ENDPOINT_SHARE_DIVISOR = 4;

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

  /** Deliveries in flight per endpoint, for its share of the slots. */
  const perEndpoint = new Map<string, number>();
  const share = Math.max(1, Math.ceil(settings.concurrency / ENDPOINT_SHARE_DIVISOR));

  // First every endpoint with due work up to its share of the slots, so an endpoint that hangs cannot hold them
  // all while others wait; then whatever is due, so a lone endpoint may still use every slot.
  const claimAndSend = async (free: number) => {
    const now = clock.now();
    // Past the lease, the delivery is someone else's to try: it outlives the request's own deadline.
    const leaseUntil = new Date(now.getTime() + settings.timeoutMs + 5000);
    let left = free;
    // Set when a claim that left no endpoint out came back short: nothing else is due, no need to ask again.
    let noneLeft = false;
    while (left > 0) {
      const atShare = [...perEndpoint].filter(([, n]) => n >= share).map(([endpointId]) => endpointId);
      const wanted = Math.min(left, share);
      const claimed = await claimDueDeliveries(db, now, leaseUntil, wanted, atShare);
      left -= send(claimed);
      if (claimed.length < wanted) {
        noneLeft = atShare.length === 0;
        break;
      }
    }
    if (left > 0 && !noneLeft) left -= send(await claimDueDeliveries(db, now, leaseUntil, left));
    // Every slot filled suggests more are due: look again as soon as one frees, without waiting for the timer.
    if (left === 0) moreDue = true;
  };

  let moreDue = false;
  const send = (claimed: readonly ClaimedDelivery[]): number => {
    for (const delivery of claimed) {
      perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
      const running = deliver(delivery).catch(observer.error);
      inFlight.add(running);
      void running.finally(() => {
        inFlight.delete(running);
        const n = (perEndpoint.get(delivery.endpointId) ?? 1) - 1;
        if (n === 0) perEndpoint.delete(delivery.endpointId);
        else perEndpoint.set(delivery.endpointId, n);
        if (moreDue) {
          moreDue = false;
          void tick().catch(observer.error);
        }
      });
    }
    return claimed.length;
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
        disabledForFailures(run.consecutiveFailures, run.failingSince),
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
