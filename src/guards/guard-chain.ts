import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { FastifyBaseLogger } from "fastify";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import type { Clock } from "../domain/clock.ts";
import { BASE_LIMIT_PER_MINUTE, graceLimit } from "../domain/tiers.ts";
import { creditsLeft, type MonthlyAllowance, returnCredit, takeCredit } from "../store/account-repository.ts";
import type { Db } from "../store/database.ts";
import { isAdminAuthorization } from "./admin-token.ts";
import { principalKey } from "./context-values.ts";
import type { KeyVerifier } from "./key-verifier.ts";
import { accessOf } from "./method-access.ts";
import type { RateLimiter } from "./rate-limiter.ts";

// The guards every API call passes, in this order, over REST, Connect and
// gRPC alike: error boundary → authentication → rate limit → quota → handler.

export interface GuardDependencies {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  readonly keys: KeyVerifier;
  readonly rateLimiter: RateLimiter;
  readonly monthlyAllowance: MonthlyAllowance;
  /** SHA-256 of the admin token, looked up at start-up. */
  readonly adminTokenHash: () => string;
}

export function createGuardChain(deps: GuardDependencies): Interceptor[] {
  return [errorBoundary(deps.log), authenticate(deps), rateLimit(deps), quota(deps)];
}

/** Anything that is not a ConnectError is a bug: log it, and answer without internals. */
function errorBoundary(log: FastifyBaseLogger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (error instanceof ConnectError) throw error;
      log.error({ err: error, rpc: req.method.name }, "unexpected error");
      throw new ConnectError("Internal server error", Code.Internal);
    }
  };
}

function authenticate(deps: GuardDependencies): Interceptor {
  return (next) => async (req) => {
    const access = accessOf(req.method);
    if (access === "public") return next(req);
    const authorization = req.header.get("authorization");
    if (access === "admin") {
      if (!isAdminAuthorization(authorization, deps.adminTokenHash())) {
        throw new ConnectError("Invalid or missing admin token", Code.Unauthenticated);
      }
      return next(req);
    }
    const verification = await deps.keys.verify(authorization);
    if (!verification.ok) throw new ConnectError(verification.message, Code.Unauthenticated);
    req.contextValues.set(principalKey, verification.principal);
    return next(req);
  };
}

function rateLimit(deps: GuardDependencies): Interceptor {
  return (next) => async (req) => {
    const principal = req.contextValues.get(principalKey);
    if (principal === undefined) return next(req);
    const base = BASE_LIMIT_PER_MINUTE[principal.tier];
    const nowMs = deps.clock.now().getTime();
    const decision = await deps.rateLimiter.hit(principal.keyId, graceLimit(base), nowMs).catch((error) => {
      // A rate-limit store that is down must not stop the phones: let the call through.
      deps.log.error({ err: error }, "rate limiter unavailable; request allowed");
      return undefined;
    });
    if (decision === undefined) return next(req);
    const headers: Record<string, string> = {
      "x-ratelimit-limit": String(base),
      "x-ratelimit-remaining": String(Math.max(0, base - decision.count)),
      "x-ratelimit-reset": String(decision.resetAtMs),
    };
    if (!decision.allowed) {
      const retryAfter = Math.max(1, Math.ceil((decision.retryAtMs - nowMs) / 1000));
      const left = await creditsLeft(deps.db, principal.tenant.accountId, deps.clock.now(), deps.monthlyAllowance);
      throw new ConnectError(
        "Rate limit exceeded",
        Code.ResourceExhausted,
        { ...headers, "x-quota-remaining": String(left), "retry-after": String(retryAfter) },
        [
          {
            desc: RateLimitExceededSchema,
            value: create(RateLimitExceededSchema, {
              retryAfterSeconds: retryAfter,
              currentUsage: decision.count,
              limit: base,
              resetAt: timestampFromMs(decision.retryAtMs),
            }),
          },
        ],
      );
    }
    if (decision.count > base) {
      deps.log.warn({ keyId: principal.keyId, count: decision.count, limit: base }, "rate limit grace in use");
    }
    return withHeaders(headers, () => next(req));
  };
}

function quota(deps: GuardDependencies): Interceptor {
  return (next) => async (req) => {
    const principal = req.contextValues.get(principalKey);
    if (principal === undefined) return next(req);
    const accountId = principal.tenant.accountId;
    const left = await takeCredit(deps.db, accountId, deps.clock.now(), deps.monthlyAllowance);
    if (left === undefined) {
      throw new ConnectError("Monthly quota exhausted", Code.ResourceExhausted, { "x-quota-remaining": "0" }, [
        {
          desc: QuotaExhaustedSchema,
          value: create(QuotaExhaustedSchema, { quotaRemaining: 0, billingAccountId: principal.billingAccountId }),
        },
      ]);
    }
    try {
      const res = await next(req);
      res.header.set("x-quota-remaining", String(left));
      return res;
    } catch (error) {
      // Only successful calls are billed: a failed one gets its credit back.
      const after = await returnCredit(deps.db, accountId, deps.clock.now()).catch(() => undefined);
      if (error instanceof ConnectError) error.metadata.set("x-quota-remaining", String(after ?? left));
      throw error;
    }
  };
}

/** Adds headers to the response, or to the error's metadata when the call fails. */
async function withHeaders<R extends { header: Headers }>(
  headers: Record<string, string>,
  call: () => Promise<R>,
): Promise<R> {
  try {
    const res = await call();
    for (const [name, value] of Object.entries(headers)) res.header.set(name, value);
    return res;
  } catch (error) {
    if (error instanceof ConnectError)
      for (const [name, value] of Object.entries(headers)) error.metadata.set(name, value);
    throw error;
  }
}
