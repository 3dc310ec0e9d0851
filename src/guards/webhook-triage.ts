import type { ContextValues, Interceptor, UnaryRequest, UnaryResponse } from "@connectrpc/connect";
import type { Clock } from "../domain/clock.ts";
import type { NoContextReason } from "../domain/context-variables.ts";
import type { Integration } from "../domain/integration.ts";
import type { InboundEvent } from "../domain/webhook-event.ts";
import { COMMIT_GRACE_MS, noContextReply } from "../integrations/answer-inbound.ts";
import { PLATFORM_ADAPTERS } from "../integrations/platforms/platform-adapters.ts";
import { readWebhookEvent } from "../integrations/read-webhook-event.ts";
import type { AdmissionControl } from "../pipeline/admission-control.ts";
import {
  completesCallKey,
  deadlineKey,
  integrationKey,
  noteNoContextKey,
  webhookEventKey,
} from "../pipeline/context-values.ts";
import { limitOf } from "../pipeline/refusals.ts";
import { requestScopeKey } from "../pipeline/request-scope.ts";
import { webhookReply } from "../pipeline/webhook-reply.ts";
import type { Db } from "../store/database.ts";
import { answerOnce, messageDigest } from "./webhook-replays.ts";

export interface WebhookTriageOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly admission: AdmissionControl;
  /** How long a platform's inbound call may wait for its context, the guards' own work included. */
  readonly startBudgetMs: number;
  /** Counts an inbound webhook answered without context. */
  readonly onNoContext?: (integration: Integration, reason: NoContextReason) => void;
}

/**
 * A verified platform webhook, read once and sorted before the limits:
 * - a message the service only acknowledges (status updates, speech, audio) is answered here, before the
 *   rate limit and the quota: nobody is billed for it, so it must not use up the window either;
 * - an end-of-call report completes a call already let in: admitted over the limit, never refused for rate
 *   or quota (completesCallKey);
 * - an inbound call is admitted here, after its signature was checked (a platform's answer has its shape),
 *   and any refusal (over the limit, out of credits, overloaded, past the start budget, the guards' own
 *   waits included) becomes a 2xx "no context" answer: a platform fails the phone call on anything else;
 *   it is answered once, and a replay of the same signed message gets the first answer (webhook-replays.ts).
 */
export function webhookTriage(options: WebhookTriageOptions): Interceptor {
  return (next) => async (req) => {
    const integration = req.contextValues.get(integrationKey);
    if (integration === undefined || req.stream) return next(req);
    const { payload } = req.message as { payload?: unknown };
    // A message that cannot be read throws its DomainError to the error boundary, which answers it.
    const event = readWebhookEvent(integration, String(payload ?? ""), req.header);
    req.contextValues.set(webhookEventKey, event);
    req.contextValues.set(noteNoContextKey, (reason) =>
      noteNoContext(req.contextValues, integration, reason, options.onNoContext),
    );
    if (event.kind === "ignored") return reply(req, { status: "ignored", type: event.type });
    if (event.kind === "end") {
      req.contextValues.set(completesCallKey, true);
      return next(req);
    }
    const noContext = (reason: NoContextReason) => {
      noteNoContext(req.contextValues, integration, reason, options.onNoContext);
      return reply(req, noContextReply(integration, event as InboundEvent, reason));
    };
    const budgetMs = Math.min(
      options.startBudgetMs,
      PLATFORM_ADAPTERS[integration.platform].inboundBudgetMs ?? Infinity,
    );
    // Counted from the webhook's arrival: the credential lookup's wait is the platform's wait too.
    const deadline = (req.contextValues.get(requestScopeKey)?.receivedAt ?? Date.now()) + budgetMs;
    req.contextValues.set(deadlineKey, deadline);
    const admitted = await options.admission.acquire({ signal: req.signal, msLeft: () => deadline - Date.now() });
    if ("refused" in admitted) return noContext(admitted.refused === "deadline" ? "timeout" : "overloaded");
    // A refusal is an answer too: a replay of the message gets the same one.
    const answer = () =>
      (next(req) as Promise<UnaryResponse>).catch((error: unknown) => {
        const reason = limitOf(error);
        if (reason === undefined) throw error;
        return noContext(reason);
      });
    const once = {
      db: options.db,
      clock: options.clock,
      integrationId: integration.integrationId,
      digest: messageDigest(String(payload ?? ""), req.header),
    };
    try {
      const answered = answerOnce(
        once,
        answer,
        (json) => replyJson(req, json),
        () => noContext("duplicate"),
      );
      const settled = await settledBy(answered, deadline + COMMIT_GRACE_MS);
      return settled === "late" ? noContext("timeout") : settled;
    } finally {
      admitted.permit.release({ pastDeadline: false });
    }
  };
}

/** Notes an inbound webhook answered without context: in the access log (the request's scope) and the counter. */
function noteNoContext(
  values: ContextValues,
  integration: Integration,
  reason: NoContextReason,
  count: WebhookTriageOptions["onNoContext"],
): void {
  const scope = values.get(requestScopeKey);
  if (scope !== undefined) scope.noContext = reason;
  count?.(integration, reason);
}

/** The answer, or "late" when it has not come by `deadline` (epoch ms); a late answer is dropped. */
async function settledBy<T>(answer: Promise<T>, deadline: number): Promise<T | "late"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
    answer.catch(() => {});
  }
}

function reply(req: UnaryRequest, body: unknown): UnaryResponse {
  return replyJson(req, JSON.stringify(body));
}

function replyJson(req: UnaryRequest, json: string): UnaryResponse {
  return {
    stream: false,
    service: req.service,
    method: req.method,
    header: new Headers(),
    trailer: new Headers(),
    message: webhookReply(json),
  } as UnaryResponse;
}
