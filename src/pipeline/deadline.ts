import type { ContextValues } from "@connectrpc/connect";
import { parseTimeout } from "@connectrpc/connect/protocol-grpc";
import { deadlineKey } from "./context-values.ts";
import { requestScopeKey } from "./request-scope.ts";

// The one place a call's deadline is decided: the earlier of the method's time budget (set by the time
// budget guard, or by the webhook triage for a platform's inbound call) and the client's own, which gRPC
// sends as grpc-timeout ("250m", "1S") and the Connect protocol as connect-timeout-ms. A REST client sends
// neither. Admission, the call's write and the metrics all read it from here.

/**
 * Epoch ms by which the call must be answered, if anything set one. The client's timeout counts from the
 * request's arrival, when the client started waiting.
 */
export function effectiveDeadline(values: ContextValues, header: Headers): number | undefined {
  const arrivedAt = values.get(requestScopeKey)?.receivedAt ?? Date.now();
  return earliest(values.get(deadlineKey), clientDeadline(header, arrivedAt));
}

/** Epoch ms by which the client stops waiting, if it said; a malformed value is no deadline (Connect answers it). */
export function clientDeadline(header: Headers, now: number = Date.now()): number | undefined {
  const grpc = header.get("grpc-timeout");
  if (grpc !== null) {
    const { timeoutMs } = parseTimeout(grpc, Number.MAX_SAFE_INTEGER);
    return timeoutMs === undefined ? undefined : now + timeoutMs;
  }
  const connect = Number(header.get("connect-timeout-ms") ?? Number.NaN);
  return Number.isSafeInteger(connect) && connect > 0 ? now + connect : undefined;
}

/** The earlier of two deadlines, either of which may be missing. */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
