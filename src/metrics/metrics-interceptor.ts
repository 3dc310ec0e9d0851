import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { CallerContextService, RecommendationSchema } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { deadlineKey, principalKey } from "../guards/context-values.ts";
import type { Metrics } from "./metrics.ts";

// Observes every API call, over every protocol, from the front of the chain:
// its duration and outcome, and what the guards and the start decided.

const RECOMMENDATIONS = new Map(
  RecommendationSchema.values.map((value) => [value.number, value.name.replace("RECOMMENDATION_", "").toLowerCase()]),
);

export function metricsInterceptor(metrics: Metrics): Interceptor {
  return (next) => async (req) => {
    const labels = { service: req.service.typeName, method: req.method.name };
    const began = performance.now();
    metrics.rpcActive.inc(labels);
    let code = "ok";
    try {
      const res = await next(req);
      if (req.method === CallerContextService.method.startCall && !res.stream) {
        const recommendation = (res.message as { identity?: { recommendation: number } }).identity?.recommendation;
        metrics.recommendations.inc({ recommendation: RECOMMENDATIONS.get(recommendation ?? 0) ?? "unspecified" });
      }
      return res;
    } catch (thrown) {
      const error = ConnectError.from(thrown);
      code = Code[error.code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
      countRefusal(metrics, error, req.contextValues.get(principalKey)?.tier);
      const deadline = req.contextValues.get(deadlineKey);
      if (error.code === Code.Unavailable && deadline !== undefined && Date.now() >= deadline) {
        metrics.budgetExpiries.inc({ method: req.method.name });
      }
      throw thrown;
    } finally {
      metrics.rpcActive.dec(labels);
      metrics.rpcDuration.observe({ ...labels, code }, (performance.now() - began) / 1000);
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
