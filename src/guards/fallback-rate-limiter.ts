import type { FastifyBaseLogger } from "fastify";
import type { FallbackRateLimiter } from "../domain/rate-limiter.ts";
import { createMemoryRateLimiter } from "./rate-limit.ts";
import type { SharedRateLimiter } from "./redis-rate-limiter.ts";

// While Redis does not answer, each instance keeps the windows itself: a key
// gets its limit from each instance rather than from all of them together,
// and no call waits for Redis or fails for want of it. From the first request
// that Redis fails (an error, or no answer within the command timeout) every
// request uses this instance's windows; Redis is asked every `recheckMs` and
// the shared windows are used again from the first time it answers
// (docs/operations.md, "Redis").

export interface FallbackRateLimiterOptions {
  readonly log: FastifyBaseLogger;
  /** How often Redis is asked whether it answers again. */
  readonly recheckMs?: number;
}

export function createFallbackRateLimiter(
  shared: SharedRateLimiter,
  options: FallbackRateLimiterOptions,
): FallbackRateLimiter {
  const { log } = options;
  const recheckMs = options.recheckMs ?? 500;
  const local = createMemoryRateLimiter();
  let usingShared = true;
  let outages = 0;
  let outageStartedAt = 0;
  let recheck: NodeJS.Timeout | undefined;
  let closed = false;

  const scheduleRecheck = () => {
    recheck = setTimeout(() => {
      shared.recover().then(
        () => {
          if (closed) return;
          usingShared = true;
          log.info(
            { outageMs: Math.round(performance.now() - outageStartedAt) },
            "Redis answers again: rate-limit windows are shared again",
          );
        },
        () => {
          if (!closed) scheduleRecheck();
        },
      );
    }, recheckMs);
    recheck.unref();
  };

  const useLocal = (error: unknown) => {
    if (!usingShared) return;
    usingShared = false;
    outages += 1;
    outageStartedAt = performance.now();
    // Redis's failure is not the service's: its reason, without a stack.
    const reason = error instanceof Error ? error.message : String(error);
    log.warn({ reason }, "Redis does not answer: rate-limit windows are this instance's own until it does");
    scheduleRecheck();
  };

  return {
    async hit(key, max, nowMs) {
      if (usingShared) {
        try {
          return await shared.hit(key, max, nowMs);
        } catch (error) {
          useLocal(error);
        }
      }
      return local.hit(key, max, nowMs);
    },
    async peek(key, nowMs) {
      if (usingShared) {
        try {
          return await shared.peek(key, nowMs);
        } catch (error) {
          useLocal(error);
        }
      }
      return local.peek(key, nowMs);
    },
    state: () => ({ shared: usingShared, outages }),
    async close() {
      closed = true;
      clearTimeout(recheck);
      await local.close();
      await shared.close();
    },
  };
}
