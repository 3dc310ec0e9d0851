import type { DescMethod } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { contactFiguresCsv } from "../analytics/contact-figures-csv.ts";
import { getContactFigures } from "../analytics/get-contact-figures.ts";
import { type Billed, isQuotaExhausted } from "../calls/billed.ts";
import type { CallRequest } from "../calls/call-write.ts";
import { endCall } from "../calls/end-call.ts";
import { identifyCall } from "../calls/identify-call.ts";
import { startCall } from "../calls/start-call.ts";
import type { AppContext } from "../context.ts";
import { DomainError } from "../domain/domain-error.ts";
import type { Principal } from "../domain/principal.ts";
import { chargeKey, chargeOutcomeKey, decodeIssuesKey, principalKey } from "../pipeline/context-values.ts";
import { writeLimitHeaders } from "../pipeline/headers.ts";
import { quotaExhausted } from "../pipeline/refusals.ts";
import { effectiveDeadline } from "../pipeline/request-scope.ts";
import { getUsage, type UsageSources } from "../usage/get-usage.ts";
import { callDepsOf } from "../use-case-deps.ts";
import {
  endRequestToInput,
  endResultToResponse,
  identifyRequestToInput,
  identifyResultToResponse,
  startRequestToInput,
  startResultToResponse,
  usageToResponse,
} from "./call-mapping.ts";
import { contactFiguresToResponse } from "./contact-figures-mapping.ts";

/**
 * The methods whose use cases refuse a body the host could not decode themselves (CallRequest.decodeIssues),
 * together with what their own validation finds: one 400 names every offending field.
 */
export const VALIDATED_WITH_DECODE_ISSUES: ReadonlySet<DescMethod> = new Set([
  CallerContextService.method.startCall,
  CallerContextService.method.endCall,
  CallerContextService.method.identifyCall,
  CallerContextService.method.getContactFigures,
  CallerContextService.method.exportContactFigures,
]);

/** StartCall, EndCall, IdentifyCall, GetUsage and the contact figures, shared by REST, Connect and gRPC: proto ⇄ the use cases. */
export function createCallerContextService(app: AppContext): ServiceImpl<typeof CallerContextService> {
  const deps = callDepsOf(app);
  const usageSources: UsageSources = {
    db: app.database.db,
    rateLimiter: app.rateLimiter,
    monthlyAllowance: app.config.monthlyQuota,
  };
  const contactFiguresOf = (request: { from: string; to: string }, context: HandlerContext) =>
    getContactFigures(
      app.database,
      requirePrincipal(context).tenant,
      { from: request.from, to: request.to, decodeIssues: context.values.get(decodeIssuesKey) },
      app.clock.now(),
    );
  return {
    startCall: async (request, context) => {
      const started = await startCall(deps, callRequestOf(context), startRequestToInput(request));
      return startResultToResponse(billedAnswer(context, started));
    },
    endCall: async (request, context) => {
      const key = idempotencyKeyOf(context.requestHeader);
      const ended = await endCall(deps, callRequestOf(context), endRequestToInput(request), key);
      return endResultToResponse(billedAnswer(context, ended));
    },
    identifyCall: async (request, context) => {
      const identified = await identifyCall(deps, callRequestOf(context), identifyRequestToInput(request));
      return identifyResultToResponse(billedAnswer(context, identified));
    },
    getUsage: async (_request, context) => {
      const usage = await getUsage(usageSources, requirePrincipal(context), app.clock.now());
      // The guard headers every authenticated response carries, from the same look (nothing was counted).
      writeLimitHeaders(context.responseHeader, {
        rateLimit: { ...usage.rateLimit, resetAtMs: usage.rateLimit.resetAt.getTime() },
        quotaRemaining: usage.quota.remaining,
      });
      return usageToResponse(usage);
    },
    getContactFigures: async (request, context) => contactFiguresToResponse(await contactFiguresOf(request, context)),
    exportContactFigures: async (request, context) => ({
      csv: contactFiguresCsv(await contactFiguresOf(request, context)),
    }),
  };
}

export function requirePrincipal(context: HandlerContext): Principal {
  const principal = context.values.get(principalKey);
  // The authentication guard runs first for every API-key method; reaching
  // here without a principal means the chain was assembled wrongly.
  if (principal === undefined) throw new DomainError("internal", "No authenticated principal");
  return principal;
}

export function callRequestOf(context: HandlerContext): CallRequest {
  const principal = requirePrincipal(context);
  return {
    tenant: principal.tenant,
    retentionDays: principal.retentionDays,
    charge: context.values.get(chargeKey),
    signal: context.signal,
    deadline: effectiveDeadline(context.values, context.requestHeader),
    decodeIssues: context.values.get(decodeIssuesKey),
  };
}

/**
 * A billed use case's answer at the method's boundary: its charge's outcome goes to the quota guard (set once, in
 * the context values), and its value to the client, or the quota's refusal when it wrote nothing for want of
 * credit (the guard then counts it, or saves a completing request unbilled).
 */
export function billedAnswer<T>(context: HandlerContext, billed: Billed<T>): T {
  if (billed.charge !== undefined) context.values.set(chargeOutcomeKey, billed.charge);
  if (isQuotaExhausted(billed)) throw quotaExhausted(requirePrincipal(context).billingAccountId);
  return billed.value;
}

/** Idempotency-Key and X-Idempotency-Key are one header; the first wins when both are sent. */
function idempotencyKeyOf(headers: Headers): string | undefined {
  return headers.get("idempotency-key") ?? headers.get("x-idempotency-key") ?? undefined;
}
