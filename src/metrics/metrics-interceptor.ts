import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { CallerContextService, RecommendationSchema } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { deadlineKey, principalKey } from "../pipeline/context-values.ts";
import type { Metrics } from "../pipeline/metrics-registry.ts";
import { requestScopeKey } from "../pipeline/request-scope.ts";
import { rpcSystemOf } from "./metrics-observer.ts";

// What only the chain can see of an API call, over every protocol: that it
// is in flight, why a guard refused it (the typed details), what a start
// recommended, and whether its time budget ran out. Durations and codes come
// from the request pipeline's report (metrics-observer.ts).

const RECOMMENDATIONS = new Map(
  RecommendationSchema.values.map((value) => [value.number, value.name.replace("RECOMMENDATION_", "").toLowerCase()]),
);

export function metricsInterceptor(metrics: Metrics): Interceptor {
  return (next) => async (req) => {
    const system = rpcSystemOf(req.contextValues.get(requestScopeKey)?.protocol ?? "http");
    const labels =
      system === undefined
        ? undefined
        : { rpc_system: system, rpc_service: req.service.typeName, rpc_method: req.method.name };
    if (labels !== undefined) metrics.rpcActive.inc(labels);
    try {
      const res = await next(req);
      if (req.method === CallerContextService.method.startCall && !res.stream) {
        const recommendation = (res.message as { identity?: { recommendation: number } }).identity?.recommendation;
        metrics.recommendations.inc({ recommendation: RECOMMENDATIONS.get(recommendation ?? 0) ?? "unspecified" });
      }
      return res;
    } catch (thrown) {
      const error = ConnectError.from(thrown);
      countRefusal(metrics, error, req.contextValues.get(principalKey)?.tier);
      const deadline = req.contextValues.get(deadlineKey);
      if (error.code === Code.Unavailable && deadline !== undefined && Date.now() >= deadline) {
        metrics.budgetExpiries.inc({ method: req.method.name });
      }
      throw thrown;
    } finally {
      if (labels !== undefined) metrics.rpcActive.dec(labels);
    }
  };
}

function countRefusal(metrics: Metrics, error: ConnectError, tier: string | undefined): void {
  if (error.findDetails(QuotaExhaustedSchema).length > 0) {
    metrics.refusals.inc({ reason: "quota", tier: tier ?? "none" });
  } else if (error.findDetails(RateLimitExceededSchema).length > 0) {
    // Without a principal, the refusal is the failed-authentication limit's.
    metrics.refusals.inc({ reason: tier === undefined ? "auth_failures" : "rate_limit", tier: tier ?? "none" });
  }
}
