import { type Billed, isQuotaExhausted } from "../calls/billed.ts";
import type { CallRequest } from "../calls/call-write.ts";
import { endCall } from "../calls/end-call.ts";
import { DomainError } from "../domain/domain-error.ts";
import { type Integration, SUMMARY_VARIABLE } from "../domain/integration.ts";
import { MAX_SUMMARY_LENGTH } from "../domain/limits.ts";
import type { EndEvent } from "../domain/webhook-event.ts";
import type { WebhookDeps } from "./webhook-deps.ts";

export interface EndReply {
  readonly call_id: string;
  /** saved; already_saved (a platform retry: nothing written, nothing billed); not_started. */
  readonly status: "saved" | "already_saved" | "not_started";
}

/**
 * An end-of-call report: the call's end with the intent and variables the
 * integration's mapping reads from the analysis, and the platform's own call
 * summary as the call's summary (recalled at the caller's next start). The platform's call id makes
 * it idempotent: a call ends once, so a retried report finds it ended and
 * changes and bills nothing.
 */
export async function recordCallEnd(
  deps: WebhookDeps,
  request: CallRequest,
  integration: Integration,
  event: EndEvent,
): Promise<Billed<EndReply>> {
  const { intentField, statusField, variableFields, storeSummary } = integration.endOfCall;
  const intent = text(event.fields[intentField]);
  const resolved = text(event.fields[statusField])?.toLowerCase() === "resolved";
  const variables: Record<string, string> = {};
  for (const name of variableFields) {
    const value = text(event.fields[name]);
    if (value !== undefined) variables[name] = value;
  }
  if (storeSummary && event.summary !== undefined) variables[SUMMARY_VARIABLE] = event.summary;
  try {
    const ended = await endCall(deps, request, {
      callId: event.callId,
      identityHints: { ani: event.ani, externalIds: {} },
      intent,
      intentStatus: intent === undefined ? undefined : resolved ? "resolved" : "open",
      variables,
      intentUpdates: [],
      variableUpdates: {},
      summary: event.summary === undefined ? undefined : cutToLength(event.summary, MAX_SUMMARY_LENGTH),
    });
    if (isQuotaExhausted(ended)) return ended;
    return { value: { call_id: event.callId, status: "saved" }, charge: ended.charge };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (error.code === "failed_precondition") return { value: { call_id: event.callId, status: "already_saved" } };
    if (error.code === "not_found") {
      // A retry cannot fix it (the inbound webhook was not used, or answered without context).
      deps.log.warn({ callId: event.callId }, "end-of-call report for a call never started");
      return { value: { call_id: event.callId, status: "not_started" } };
    }
    throw error;
  }
}

/** The platform writes its summary, not the client: a long one is cut rather than the whole report refused. */
function cutToLength(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  // Not half of a surrogate pair.
  return cut.isWellFormed() ? cut : cut.slice(0, -1);
}

/** A field's value as variable text; absent, null and empty count as unknown. */
function text(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}
