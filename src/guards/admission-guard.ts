import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { AdmissionControl, ShedReason } from "../pipeline/admission-control.ts";
import { effectiveDeadline } from "../pipeline/deadline.ts";
import { methodPolicyOf } from "../pipeline/method-policy.ts";
import { RETRY_AFTER_SECONDS, retryAfter } from "../pipeline/retry-after.ts";

const TOO_MANY = "Too many calls in flight; proceed without context and retry later";
const MESSAGES: Record<ShedReason, string> = {
  limit: TOO_MANY,
  queue_forecast: TOO_MANY,
  pressure: "The service is overloaded; proceed without context and retry later",
  deadline: "The deadline passed before the call could start; nothing was done",
};

/**
 * Admits a call into the limit before it does any database work (authentication
 * included), or refuses it at once with UNAVAILABLE (REST 503) and a retry
 * hint. Sits inside the time budget: a call whose deadline passes while it
 * waits is not started. Methods that are not shedable (health) pass untouched.
 */
export function admissionGuard(admission: AdmissionControl): Interceptor {
  return (next) => async (req) => {
    if (!isShedable(req.method)) return next(req);
    const deadline = effectiveDeadline(req.contextValues, req.header);
    const outcome = await admission.acquire({
      signal: req.signal,
      // The budget's timer fires a little after its deadline; a call that waited past it is not started.
      msLeft: deadline === undefined ? undefined : () => deadline - Date.now(),
      finishes: finishesAdmittedWork(req.method),
    });
    if ("refused" in outcome) throw refusal(outcome.refused);
    try {
      return await next(req);
    } finally {
      outcome.permit.release({ pastDeadline: deadline !== undefined && Date.now() >= deadline });
    }
  };
}

/**
 * An end completes a call whose start was let in: it is admitted even over
 * the limit (still counted in flight), so a burst is shed at its starts
 * rather than half way through calls. Ends are bounded by the starts admitted.
 */
export function finishesAdmittedWork(method: DescMethod): boolean {
  return methodPolicyOf(method).admission === "completes_call";
}

/**
 * Health and its like are never shed: a load balancer must still hear that the instance is degraded.
 * Platform webhooks are admitted by the webhook triage once their signature is checked, so that a refusal
 * can be answered in the platform's shape (src/guards/webhook-triage.ts).
 */
export function isShedable(method: DescMethod): boolean {
  const { admission } = methodPolicyOf(method);
  return admission === "shed" || admission === "completes_call";
}

/**
 * For the hosts, before they read a request's body: the refusal the guard
 * would give at once, or undefined. A refusal that costs a parse and a
 * decode takes CPU from the calls that were let in.
 */
export function earlyRefusal(admission: AdmissionControl): (method: DescMethod) => ConnectError | undefined {
  return (method) => {
    if (!isShedable(method) || finishesAdmittedWork(method)) return undefined;
    const reason = admission.refuseEarly();
    return reason === undefined ? undefined : refusal(reason);
  };
}

function refusal(reason: ShedReason): ConnectError {
  return new ConnectError(MESSAGES[reason], Code.Unavailable, {
    ...retryAfter(RETRY_AFTER_SECONDS.overloaded),
    // gRPC's own retry hint (gRFC A6): clients with a retry policy wait this long.
    "grpc-retry-pushback-ms": String(RETRY_AFTER_SECONDS.overloaded * 1000),
  });
}
