import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { identifyCall } from "../calls/identify-call.ts";
import type { AppContext } from "../context.ts";
import { DomainError, validationError } from "../domain/domain-error.ts";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../domain/limits.ts";
import { validateEndCall } from "../domain/validate-end.ts";
import { validateStartCall } from "../domain/validate-start.ts";
import { chargeKey, deadlineKey, decodeIssuesKey, type Principal, principalKey } from "../guards/context-values.ts";
import { endCall } from "../store/end-call.ts";
import type { CallStoreOptions, Operation } from "../store/operation.ts";
import { startCall } from "../store/start-call.ts";
import { getUsage, type UsageSources } from "../usage/get-usage.ts";
import {
  endRequestToInput,
  endResultToResponse,
  identifyRequestToInput,
  identifyResultToResponse,
  startRequestToInput,
  startResultToResponse,
  usageToResponse,
} from "./call-mapping.ts";
import { withDomainErrors } from "./connect-errors.ts";

/** StartCall, EndCall, IdentifyCall and GetUsage, shared by REST, Connect and gRPC. */
export function createCallerContextService(app: AppContext): ServiceImpl<typeof CallerContextService> {
  const store: CallStoreOptions = {
    db: app.database.db,
    defaultRegion: app.config.defaultRegion,
    inflightAbort: app.database.inflightAbort,
  };
  const usageSources: UsageSources = {
    db: app.database.db,
    rateLimiter: app.rateLimiter,
    monthlyAllowance: app.config.monthlyQuota,
  };
  return {
    startCall: withDomainErrors(async (request, context) => {
      const principal = requirePrincipal(context);
      const input = validateStartCall(startRequestToInput(request), [...context.values.get(decodeIssuesKey)]);
      return startResultToResponse(await startCall(store, principal.tenant, input, operationOf(context)));
    }),
    endCall: withDomainErrors(async (request, context) => {
      const principal = requirePrincipal(context);
      const command = validateEndCall(endRequestToInput(request), app.config.sensitiveData, [
        ...context.values.get(decodeIssuesKey),
      ]);
      const key = idempotencyKeyOf(context.requestHeader);
      return endResultToResponse(await endCall(store, principal.tenant, command, key, operationOf(context)));
    }),
    identifyCall: withDomainErrors(async (request, context) => {
      const principal = requirePrincipal(context);
      const input = identifyRequestToInput(request);
      validateStartCall(input, [...context.values.get(decodeIssuesKey)]);
      return identifyResultToResponse(await identifyCall(store, principal.tenant, input, operationOf(context)));
    }),
    getUsage: withDomainErrors(async (_request, context) => {
      const principal = requirePrincipal(context);
      const issues = context.values.get(decodeIssuesKey);
      if (issues.length > 0) throw validationError(issues);
      const usage = await getUsage(usageSources, principal, app.clock.now());
      // The guard headers every authenticated response carries, from the same look (nothing was counted).
      context.responseHeader.set("x-ratelimit-limit", String(usage.rateLimit.limit));
      context.responseHeader.set("x-ratelimit-remaining", String(usage.rateLimit.remaining));
      context.responseHeader.set("x-ratelimit-reset", String(usage.rateLimit.resetAt.getTime()));
      context.responseHeader.set("x-quota-remaining", String(usage.quota.remaining));
      return usageToResponse(usage);
    }),
  };

  function operationOf(context: HandlerContext): Operation {
    return {
      now: app.clock.now(),
      charge: context.values.get(chargeKey),
      signal: context.signal,
      deadline: earliest(context.values.get(deadlineKey), clientDeadline(context)),
    };
  }
}

export function requirePrincipal(context: HandlerContext): Principal {
  const principal = context.values.get(principalKey);
  // The authentication guard runs first for every API-key method; reaching
  // here without a principal means the chain was assembled wrongly.
  if (principal === undefined) throw new DomainError("internal", "No authenticated principal");
  return principal;
}

/** Idempotency-Key and X-Idempotency-Key are one header; the first wins when both are sent. */
function idempotencyKeyOf(headers: Headers): string | undefined {
  const key = headers.get("idempotency-key") ?? headers.get("x-idempotency-key") ?? undefined;
  if (key === undefined) return undefined;
  if (key === "" || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new DomainError("invalid_argument", "Validation failed", [
      { path: ["Idempotency-Key"], message: `Must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` },
    ]);
  }
  return key;
}

/** The client's own deadline (grpc-timeout, connect-timeout-ms) as epoch ms, if it sent one. */
function clientDeadline(context: HandlerContext): number | undefined {
  const left = context.timeoutMs();
  return left === undefined ? undefined : Date.now() + left;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
