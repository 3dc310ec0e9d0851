import { randomUUID } from "node:crypto";
import { type Billed, isQuotaExhausted } from "../calls/billed.ts";
import type { CallRequest } from "../calls/call-write.ts";
import { startCall } from "../calls/start-call.ts";
import type { StartCallResult } from "../domain/call.ts";
import { contextVariables, type NoContextReason, noContextVariables } from "../domain/context-variables.ts";
import { DomainError } from "../domain/domain-error.ts";
import { type Integration, SUMMARY_VARIABLE } from "../domain/integration.ts";
import type { InboundEvent } from "../domain/webhook-event.ts";
import { PLATFORM_ADAPTERS } from "./platforms/platform-adapters.ts";
import type { WebhookAnswer } from "./webhook-answer.ts";
import type { WebhookDeps } from "./webhook-deps.ts";

/**
 * Waits this much past the budget for a write that is committing, so its context reaches the reply; past it
 * the reply carries none (the call proceeds) whatever the write does. The calls' own budget waits for the
 * write's outcome instead (src/guards/admission-guard.ts), since its answer says whether the call was saved.
 */
export const COMMIT_GRACE_MS = 50;

/**
 * An inbound call: a start under the platform's call id (or one of ours the
 * platform carries back), answered in the platform's shape. A ringing phone
 * must not wait on us: past the start budget, or when the start fails for any
 * reason but the quota, the answer is a valid "no context" reply so the call
 * proceeds; the start's write undoes itself if it reaches its end too late.
 * A quota refusal is answered as such, left to the quota guard, which counts
 * it; the webhook triage then answers "no context" too.
 */
export async function answerInbound(
  deps: WebhookDeps,
  request: CallRequest,
  integration: Integration,
  event: InboundEvent,
): Promise<Billed<WebhookAnswer>> {
  const callId = inboundCallId(event);
  const started = await startWithinBudget(deps, request, {
    callId,
    identityHints: { ani: event.ani, dnis: event.dnis, externalIds: {} },
    attestation: event.attestation,
  });
  if (typeof started !== "string" && isQuotaExhausted(started)) return started;
  const declared = declaredVariables(integration);
  const noContext = typeof started === "string" ? started : undefined;
  const variables =
    typeof started === "string" ? noContextVariables(declared, started) : contextVariables(started.value, declared);
  const reply = PLATFORM_ADAPTERS[integration.platform].inboundReply(variables, integration, callId);
  return { value: { reply, noContext }, charge: typeof started === "string" ? undefined : started.charge };
}

/** The platform's answer for a call that goes ahead without context, for `reason`. */
export function noContextReply(integration: Integration, event: InboundEvent, reason: NoContextReason): unknown {
  const variables = noContextVariables(declaredVariables(integration), reason);
  return PLATFORM_ADAPTERS[integration.platform].inboundReply(variables, integration, inboundCallId(event));
}

function inboundCallId(event: InboundEvent): string {
  return event.callId ?? `cc_${randomUUID()}`;
}

function declaredVariables(integration: Integration): readonly string[] {
  const { variableFields, storeSummary } = integration.endOfCall;
  return storeSummary ? [...variableFields, SUMMARY_VARIABLE] : variableFields;
}

async function startWithinBudget(
  deps: WebhookDeps,
  request: CallRequest,
  input: Parameters<typeof startCall>[2],
): Promise<Billed<StartCallResult> | NoContextReason> {
  const budget = new AbortController();
  const signal = request.signal === undefined ? budget.signal : AbortSignal.any([request.signal, budget.signal]);
  // The webhook triage set the deadline when the webhook arrived; the guards' waits count against it too.
  const { deadline } = request;
  const started = startCall(deps, { ...request, signal }, input);
  let timer: NodeJS.Timeout | undefined;
  const overBudget = new Promise<"over">((resolve) => {
    if (deadline === undefined) return;
    timer = setTimeout(() => resolve("over"), Math.max(0, deadline - Date.now()) + COMMIT_GRACE_MS);
  });
  try {
    const outcome = await Promise.race([started, overBudget]);
    if (outcome !== "over") return outcome;
    budget.abort();
    started.catch(() => {});
    deps.log.warn({ callId: input.callId, budgetMs: deps.startBudgetMs }, "inbound webhook answered without context");
    return "timeout";
  } catch (error) {
    deps.log.warn({ err: error, callId: input.callId }, "inbound webhook answered without context");
    return error instanceof DomainError && error.code === "unavailable" ? "timeout" : "error";
  } finally {
    clearTimeout(timer);
  }
}
