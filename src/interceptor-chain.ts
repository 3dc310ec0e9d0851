import type { Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "./domain/clock.ts";
import type { NoContextReason } from "./domain/context-variables.ts";
import type { Integration } from "./domain/integration.ts";
import type { RateLimiter } from "./domain/rate-limiter.ts";
import type { MonthlyAllowance } from "./domain/tiers.ts";
import { admissionGuard, readinessGuard, type TimeBudgets, timeBudget } from "./guards/admission-guard.ts";
import { authenticate } from "./guards/authenticate.ts";
import { errorBoundary, implementationErrors } from "./guards/error-boundary.ts";
import type { CreditsLowWatch } from "./guards/quota-guard.ts";
import { quotaGuard } from "./guards/quota-guard.ts";
import { rateLimitGuard } from "./guards/rate-limit.ts";
import { webhookTriage } from "./guards/webhook-triage.ts";
import { strictInput } from "./http/json-codec.ts";
import { recordOutcome } from "./http/request-pipeline.ts";
import { metricsInterceptor } from "./metrics/metrics-interceptor.ts";
import type { AdmissionControl } from "./pipeline/admission-control.ts";
import { onlyFor } from "./pipeline/method-policy.ts";
import type { Metrics } from "./pipeline/metrics-registry.ts";
import type { KeyVerifier, WebhookVerifier } from "./pipeline/verifiers.ts";
import { ADMIN_METHODS_VALIDATED_WITH_DECODE_ISSUES } from "./rpc/admin-service.ts";
import { VALIDATED_WITH_DECODE_ISSUES } from "./rpc/caller-context-service.ts";
import { CUSTOMER_METHODS_VALIDATED_WITH_DECODE_ISSUES } from "./rpc/customer-service.ts";
import type { Db } from "./store/database.ts";
import type { UsageMeter } from "./usage/usage-meter.ts";

// The one list of interceptors every call passes, in this order, over REST,
// Connect and both gRPC paths alike (the hosts take it as it is). The outcome
// is noted outermost so that every refusal below is reported with its code;
// readiness refuses before the error boundary so that a starting service
// answers 503 without touching the store; the budget starts before the other
// guards: the wait for admission and their database work are part of the time
// the caller waits. Platform webhooks are admitted by the triage rather than
// the admission step: only once their signature is checked can a refusal be
// answered in the platform's shape; the triage is applied to the webhook
// methods only, so an API call never enters it. Strict input comes last, after
// authentication, so a caller without a valid key learns nothing about valid
// bodies (401, not 400).

export interface InterceptorDependencies {
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
  /** A span per call, when tracing is configured. */
  readonly tracing?: Interceptor;
  /** Counts and times each call, when metrics are on. */
  readonly metrics?: Metrics;
}

export function createInterceptorChain(deps: InterceptorDependencies): Interceptor[] {
  return [
    recordOutcome(),
    ...(deps.tracing ? [deps.tracing] : []),
    ...(deps.metrics ? [metricsInterceptor(deps.metrics)] : []),
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
    onlyFor(
      "integration",
      webhookTriage({
        db: deps.db,
        clock: deps.clock,
        admission: deps.admission,
        startBudgetMs: deps.webhookStartBudgetMs,
        onNoContext: deps.onNoContext,
      }),
    ),
    rateLimitGuard(deps),
    quotaGuard(deps),
    strictInput({
      validatedWithDecodeIssues: new Set([
        ...VALIDATED_WITH_DECODE_ISSUES,
        ...CUSTOMER_METHODS_VALIDATED_WITH_DECODE_ISSUES,
        ...ADMIN_METHODS_VALIDATED_WITH_DECODE_ISSUES,
      ]),
    }),
    implementationErrors(),
  ];
}
