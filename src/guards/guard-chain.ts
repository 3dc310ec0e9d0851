import type { Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../domain/clock.ts";
import type { NoContextReason } from "../domain/context-variables.ts";
import type { Integration } from "../domain/integration.ts";
import type { MonthlyAllowance } from "../store/billing/quota-slots.ts";
import type { Db } from "../store/engine/database.ts";
import type { UsageMeter } from "../usage/usage-meter.ts";
import type { AdmissionControl } from "./admission.ts";
import { admissionGuard } from "./admission-guard.ts";
import { authenticate } from "./authenticate.ts";
import type { CreditsLowWatch } from "./credits-low-watch.ts";
import { errorBoundary } from "./error-boundary.ts";
import type { KeyVerifier } from "./key-verifier.ts";
import { quotaGuard } from "./quota-guard.ts";
import { rateLimitGuard } from "./rate-limit-guard.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import { readinessGuard } from "./readiness-guard.ts";
import { type TimeBudgets, timeBudget } from "./time-budget.ts";
import { webhookTriage } from "./webhook-triage.ts";
import type { WebhookVerifier } from "./webhook-verifier.ts";

// The interceptors every call passes, in this order, over REST, Connect and
// gRPC alike: readiness → error boundary → time budget → admission →
// authentication → webhook triage → rate limit → quota → handler. The budget
// starts before the guards: the wait for admission and their database work are
// part of the time the caller waits. Platform webhooks are admitted by the
// triage rather than the admission step: only once their signature is checked
// can a refusal be answered in the platform's shape.

export interface GuardDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly keys: KeyVerifier;
  readonly webhooks: WebhookVerifier;
  readonly rateLimiter: RateLimiter;
  readonly failedAuthLimiter: RateLimiter;
  readonly monthlyAllowance: MonthlyAllowance;
  /** SHA-256 of the admin token in force. */
  readonly adminTokenHash: () => string;
  /** Failed authentications one client address may make per rolling minute. */
  readonly authFailuresPerMinute: number;
  /** The configured time budgets; each method names the one it has, if any, in its proto options. */
  readonly budgets: TimeBudgets;
  /** False until the database is reachable and migrated. */
  readonly isReady: () => boolean;
  readonly admission: AdmissionControl;
  /** Counts billed and refused calls and keys' last use, in memory. */
  readonly meter?: UsageMeter;
  /** How long a platform's inbound call may wait for its context (the start budget). */
  readonly webhookStartBudgetMs: number;
  /** Counts an inbound webhook answered without context. */
  readonly onNoContext?: (integration: Integration, reason: NoContextReason) => void;
  /** Hears the credits left after each charge, for credits.low. */
  readonly creditsLow?: CreditsLowWatch;
}

export function createGuardChain(deps: GuardDependencies): Interceptor[] {
  return [
    readinessGuard(deps.isReady),
    errorBoundary(deps.log),
    timeBudget(deps.budgets),
    admissionGuard(deps.admission),
    authenticate({
      keys: deps.keys,
      webhooks: deps.webhooks,
      adminTokenHash: deps.adminTokenHash,
      clock: deps.clock,
      // Per instance: counting guesses needs no coordination to slow them down.
      failures: deps.failedAuthLimiter,
      failuresPerMinute: deps.authFailuresPerMinute,
      meter: deps.meter,
    }),
    webhookTriage({
      db: deps.db,
      clock: deps.clock,
      admission: deps.admission,
      startBudgetMs: deps.webhookStartBudgetMs,
      onNoContext: deps.onNoContext,
    }),
    rateLimitGuard(deps),
    quotaGuard(deps),
  ];
}
