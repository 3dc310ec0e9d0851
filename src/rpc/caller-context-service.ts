import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { type CallRequest, callDepsOf } from "../calls/call-deps.ts";
import { endCall } from "../calls/end-call.ts";
import { startCall } from "../calls/start-call.ts";
import type { AppContext } from "../context.ts";
import { DomainError } from "../domain/domain-error.ts";
import { chargeKey, deadlineKey, principalKey } from "../guards/context-values.ts";
import { endRequestToInput, endResultToResponse, startRequestToInput, startResultToResponse } from "./call-mapping.ts";
import { withDomainErrors } from "./connect-errors.ts";

/** StartCall and EndCall, shared by REST, Connect and gRPC: proto ⇄ the call use cases. */
export function createCallerContextService(app: AppContext): ServiceImpl<typeof CallerContextService> {
  const deps = callDepsOf(app);
  return {
    startCall: withDomainErrors(async (request, context) =>
      startResultToResponse(await startCall(deps, callRequestOf(context), startRequestToInput(request))),
    ),
    endCall: withDomainErrors(async (request, context) => {
      const key = idempotencyKeyOf(context.requestHeader);
      return endResultToResponse(await endCall(deps, callRequestOf(context), endRequestToInput(request), key));
    }),
  };
}

function callRequestOf(context: HandlerContext): CallRequest {
  const principal = context.values.get(principalKey);
  // The authentication guard runs first for every API-key method; reaching
  // here without a principal means the chain was assembled wrongly.
  if (principal === undefined) throw new DomainError("internal", "No authenticated principal");
  return {
    tenant: principal.tenant,
    charge: context.values.get(chargeKey),
    signal: context.signal,
    deadline: earliest(context.values.get(deadlineKey), clientDeadline(context)),
  };
}

/** Idempotency-Key and X-Idempotency-Key are one header; the first wins when both are sent. */
function idempotencyKeyOf(headers: Headers): string | undefined {
  return headers.get("idempotency-key") ?? headers.get("x-idempotency-key") ?? undefined;
}

/** The client's own deadline (grpc-timeout, connect-timeout-ms) as epoch ms, if it sent one. */
function clientDeadline(context: HandlerContext): number | undefined {
  const left = context.timeoutMs();
  return left === undefined ? undefined : Date.now() + left;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
