import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

export const RETRY_AFTER_BUDGET_SECONDS = 1;

/**
 * Gives a call a time budget. A ringing phone cannot wait: when the budget
 * runs out the client gets 503 (gRPC UNAVAILABLE) with Retry-After at once, so
 * its agent can greet the caller without context, and the handler's signal
 * is aborted so its transaction rolls back instead of finishing. A client's
 * own deadline (grpc-timeout, connect-timeout-ms) aborts the same signal.
 */
export function timeBudget(budgetOf: (method: DescMethod) => number | undefined): Interceptor {
  return (next) => async (req) => {
    const budgetMs = budgetOf(req.method);
    if (budgetMs === undefined) return next(req);
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
      }, budgetMs);
    });
    try {
      return await Promise.race([next({ ...req, signal }), overBudget]);
    } finally {
      clearTimeout(timer);
    }
  };
}
