import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../domain/clock.ts";
import type { MonthlyAllowance } from "../store/account-repository.ts";
import type { Db } from "../store/database.ts";
import type { UsageMeter } from "../usage/usage-meter.ts";
import { authenticate } from "./authenticate.ts";
import { errorBoundary } from "./error-boundary.ts";
import type { KeyVerifier } from "./key-verifier.ts";
import { quotaGuard } from "./quota-guard.ts";
import { rateLimitGuard } from "./rate-limit-guard.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { timeBudget } from "./time-budget.ts";

// The interceptors every call passes, in this order, over REST, Connect and
// gRPC alike: error boundary → time budget → authentication → rate limit →
// quota → handler. The budget starts before the guards: their database work
// is part of the time the caller waits.

export interface GuardDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly keys: KeyVerifier;
  readonly rateLimiter: RateLimiter;
  readonly failedAuthLimiter: RateLimiter;
  readonly monthlyAllowance: MonthlyAllowance;
  /** SHA-256 of the admin token in force. */
  readonly adminTokenHash: () => string;
  /** Failed authentications one client address may make per rolling minute. */
  readonly authFailuresPerMinute: number;
  /** The time budget of a method, if it has one. */
  readonly budgetOf: (method: DescMethod) => number | undefined;
  /** Counts billed and refused calls and keys' last use, in memory. */
  readonly meter?: UsageMeter;
}

export function createGuardChain(deps: GuardDependencies): Interceptor[] {
  return [
    errorBoundary(deps.log),
    timeBudget(deps.budgetOf),
    authenticate({
      keys: deps.keys,
      adminTokenHash: deps.adminTokenHash,
      clock: deps.clock,
      // Per instance: counting guesses needs no coordination to slow them down.
      failures: deps.failedAuthLimiter,
      failuresPerMinute: deps.authFailuresPerMinute,
      meter: deps.meter,
    }),
    rateLimitGuard(deps),
    quotaGuard(deps),
  ];
}
