import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { AdmissionControl, ShedReason } from "../pipeline/admission-control.ts";
import { deadlineKey } from "../pipeline/context-values.ts";
import { methodPolicyOf } from "../pipeline/method-policy.ts";
import { effectiveDeadline } from "../pipeline/request-scope.ts";
import { RETRY_AFTER_SECONDS, retryAfter } from "../pipeline/retry-after.ts";

// The three interceptors that decide whether a call is let in, and for how
// long: readiness (the database is up), the time budget (the call's
// deadline) and admission (a place in the limit). First in the chain, before
// any guard reads the store.

// The service listens before its database is reachable and migrated, so that a
// load balancer sees it starting; until then every call but the health check,
// which reports the database itself, is refused with 503 before any guard reads the store.

export function readinessGuard(isReady: () => boolean): Interceptor {
  return (next) => async (req) => {
    if (isReady() || !methodPolicyOf(req.method).needsDatabase) return next(req);
    throw new ConnectError(
      "Service is starting: the database is not ready yet",
      Code.Unavailable,
      retryAfter(RETRY_AFTER_SECONDS.starting),
    );
  };
}

/**
 * How long past the budget the answer waits for the outcome of a write
 * already sent. A cancelled statement, or one that reaches its deadline
 * check, answers within milliseconds; this bounds the wait when the database
 * itself has stopped answering (the outcome is then unknown: a retry with the
 * same call_id tells), and when the call is still in a read that cannot be
 * abandoned at once (the embedded database's one connection).
 */
export const OUTCOME_WAIT_MS = 200;

/** The configured budgets (START_BUDGET_MS, END_BUDGET_MS), in ms; each method names its own in the proto. */
export interface TimeBudgets {
  readonly start: number;
  readonly end: number;
}

/**
 * Gives a call a time budget. A ringing phone cannot wait: when the budget
 * runs out the handler's signal is aborted, so work not yet sent to the
 * database is not sent and a statement running is cancelled, and the client
 * gets 503 (gRPC UNAVAILABLE) with Retry-After, so its agent can greet the
 * caller without context. A write that was already committing when the budget
 * ran out is answered with its success instead: the answer is what the
 * statement did, never a guess (src/store/calls/call-statement.ts). A client's
 * own deadline (grpc-timeout, connect-timeout-ms) aborts the same signal.
 */
export function timeBudget(budgets: TimeBudgets): Interceptor {
  return (next) => async (req) => {
    const budget = methodPolicyOf(req.method).budget;
    if (budget === undefined) return next(req);
    const budgetMs = budgets[budget];
    req.contextValues.set(deadlineKey, Date.now() + budgetMs);
    // The handler's signal: aborted at the budget, or with the request's own. Linked by hand rather than with
    // AbortSignal.any, whose composite signals Node tracks with weak references and a finalization registry on
    // every listener: each request's would be kept into the old generation.
    const timeUp = new AbortController();
    const clientLeft = () => timeUp.abort(req.signal.reason);
    if (req.signal.aborted) clientLeft();
    else req.signal.addEventListener("abort", clientLeft, { once: true });
    const answer = next({ ...req, signal: timeUp.signal });
    const unlink = () => req.signal.removeEventListener("abort", clientLeft);
    answer.then(unlink, unlink);
    if ((await settledWithin(answer, budgetMs)) === "settled") return answer;
    // Built only now: an error captures a stack, which every call would otherwise pay for.
    const refusal = new ConnectError(
      `Not answered within ${budgetMs} ms; proceed without context and retry later`,
      Code.Unavailable,
      retryAfter(RETRY_AFTER_SECONDS.overloaded),
    );
    timeUp.abort(refusal);
    if ((await settledWithin(answer, OUTCOME_WAIT_MS)) === "pending") throw refusal;
    try {
      return await answer;
    } catch {
      // Whatever failed after the budget ran out saved nothing: the budget's answer says so.
      throw refusal;
    }
  };
}

/** Whether `promise` settles (either way) within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<"settled" | "pending"> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<"pending">((resolve) => {
    timer = setTimeout(() => resolve("pending"), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => "settled" as const,
        () => "settled" as const,
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

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
