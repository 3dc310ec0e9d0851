import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { deadlineKey } from "./context-values.ts";

export const RETRY_AFTER_BUDGET_SECONDS = 1;

/**
 * The call's write undoes itself when it reaches its last step after the
 * deadline; one that passed that step just before is committing. The answer
 * waits this much past the deadline, so such a call answers 200 itself
 * rather than being told 503 while it commits.
 */
const COMMIT_GRACE_MS = 50;

/**
 * Gives a call a time budget. A ringing phone cannot wait: when the budget
 * runs out the client gets 503 (gRPC UNAVAILABLE) with Retry-After at once, so
 * its agent can greet the caller without context, and the handler's signal
 * is aborted so its statement is cancelled instead of finishing; a statement
 * that gets past its lock waits after the deadline undoes itself (the
 * deadline in the context). A client's own deadline (grpc-timeout,
 * connect-timeout-ms) aborts the same signal.
 */
export function timeBudget(budgetOf: (method: DescMethod) => number | undefined): Interceptor {
  return (next) => async (req) => {
    const budgetMs = budgetOf(req.method);
    if (budgetMs === undefined) return next(req);
    req.contextValues.set(deadlineKey, Date.now() + budgetMs);
    const budget = new AbortController();
    const signal = AbortSignal.any([req.signal, budget.signal]);
    let timer: NodeJS.Timeout | undefined;
    const overBudget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ConnectError(
          `Not answered within ${budgetMs} ms; proceed without context and retry later`,
          Code.Unavailable,
          { "retry-after": String(RETRY_AFTER_BUDGET_SECONDS) },
        );
        budget.abort(error);
        reject(error);
      }, budgetMs + COMMIT_GRACE_MS);
    });
    try {
      return await Promise.race([next({ ...req, signal }), overBudget]);
    } finally {
      clearTimeout(timer);
    }
  };
}
