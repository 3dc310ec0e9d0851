import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { deadlineKey } from "../pipeline/context-values.ts";
import { methodPolicyOf } from "../pipeline/method-policy.ts";
import { RETRY_AFTER_SECONDS, retryAfter } from "../pipeline/retry-after.ts";

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
