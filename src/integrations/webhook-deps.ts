import type { FastifyBaseLogger } from "fastify";
import type { CallDeps } from "../calls/call-write.ts";

// What the webhook use cases need: the call use cases' dependencies, the
// start's own time budget (past it the platform gets a "no context" answer)
// and a log for what a platform cannot be told.

export interface WebhookDeps extends CallDeps {
  readonly startBudgetMs: number;
  readonly log: FastifyBaseLogger;
}
