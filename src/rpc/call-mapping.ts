import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  type EndCallRequest,
  type EndCallResponseSchema,
  type GetUsageResponseSchema,
  type IdentifyCallRequest,
  type IdentifyCallResponseSchema,
  type IdentityHints,
  IdentityLevel,
  IntentStatus,
  LineType,
  Recommendation,
  type StartCallRequest,
  type StartCallResponseSchema,
} from "../../gen/callercontext/v1/caller_context_pb.ts";
import type {
  CallIntent,
  IntentStatus as DomainIntentStatus,
  LineType as DomainLineType,
  EndCallInput,
  EndCallResult,
  IdentifyCallInput,
  Identity,
  IdentityHintsInput,
  StartCallInput,
  StartCallResult,
} from "../domain/call.ts";
import type { Usage } from "../usage/get-usage.ts";

// proto ⇄ domain, field by field. Enum zero values (*_UNSPECIFIED) mean "not given".

export function startRequestToInput(request: StartCallRequest): StartCallInput {
  return {
    callId: request.callId,
    identityHints: request.identityHints && hintsToInput(request.identityHints),
    lineType: LINE_TYPES[request.telco?.lineType ?? LineType.UNSPECIFIED],
    attestation: request.telco?.attestation,
    verstat: request.telco?.verstat,
  };
}

export function identifyRequestToInput(request: IdentifyCallRequest): IdentifyCallInput {
  return {
    callId: request.callId,
    identityHints: request.identityHints && hintsToInput(request.identityHints),
    verified: request.verified,
  };
}

export function usageToResponse(usage: Usage): MessageInitShape<typeof GetUsageResponseSchema> {
  return {
    tier: usage.tier,
    rateLimit: {
      limit: usage.rateLimit.limit,
      remaining: usage.rateLimit.remaining,
      resetAt: timestampFromMs(usage.rateLimit.resetAt.getTime()),
    },
    quota: { remaining: usage.quota.remaining, renewsAt: timestampFromMs(usage.quota.renewsAt.getTime()) },
    key: usage.key,
  };
}

export function endRequestToInput(request: EndCallRequest): EndCallInput {
  return {
    callId: request.callId,
    customerRef: request.customerRef,
    identityHints: request.identityHints && hintsToInput(request.identityHints),
    intent: request.intent,
    intentStatus: INTENT_STATUSES[request.intentStatus],
    variables: request.variables,
    intentUpdates: request.intentUpdates.map((update) => ({
      intent: update.intent,
      status: INTENT_STATUSES[update.status],
      resolution: update.resolution && {
        type: update.resolution.type,
        externalReference: update.resolution.externalReference,
      },
    })),
    variableUpdates: Object.fromEntries(
      Object.entries(request.variableUpdates).map(([name, update]) => [
        name,
        {
          value: update.value,
          source: update.source,
          ttlSeconds: update.ttlSeconds,
          requiresVerification: update.requiresVerification,
        },
      ]),
    ),
    summary: request.summary,
  };
}

function hintsToInput(hints: IdentityHints): IdentityHintsInput {
  return { ani: hints.ani, dnis: hints.dnis, externalIds: hints.externalIds, customerRef: hints.customerRef };
}

export function startResultToResponse(result: StartCallResult): MessageInitShape<typeof StartCallResponseSchema> {
  return callerContextFields(result);
}

/** An identification answers with the start response's fields. */
export function identifyResultToResponse(result: StartCallResult): MessageInitShape<typeof IdentifyCallResponseSchema> {
  return callerContextFields(result);
}

function callerContextFields(result: StartCallResult) {
  return {
    callId: result.callId,
    customerRef: result.customerRef,
    callStart: timestampFromMs(result.callStart.getTime()),
    identity: identityToProto(result.identity),
    openIntents: result.openIntents.map((intent) => ({
      intent: intent.intent,
      status: IntentStatus.OPEN,
      attemptCount: intent.attemptCount,
    })),
    variables: variablesToProto(result.variables),
    recentCalls: result.recentCalls.map((call) => ({
      callStart: timestampFromMs(call.callStart.getTime()),
      callEnd: timestampFromMs(call.callEnd.getTime()),
      intents: callIntentsToProto(call.intents),
      summary: call.summary,
    })),
    heldBackVariables: [...result.heldBackVariables],
  };
}

export function callIntentsToProto(intents: readonly CallIntent[]) {
  return intents.map((intent) => ({
    intent: intent.intent,
    status: intent.status === "resolved" ? IntentStatus.RESOLVED : IntentStatus.OPEN,
  }));
}

/** Stored variables as start returns them: an unset source is JSON null. */
export function variablesToProto(variables: StartCallResult["variables"]) {
  return Object.fromEntries(
    Object.entries(variables).map(([name, variable]) => [
      name,
      {
        value: variable.value,
        source: variable.source ?? undefined,
        ttlSeconds: variable.ttlSeconds,
        requiresVerification: variable.requiresVerification,
      },
    ]),
  );
}

export function endResultToResponse(result: EndCallResult): MessageInitShape<typeof EndCallResponseSchema> {
  return {
    callId: result.callId,
    customerRef: result.customerRef,
    callStart: timestampFromMs(result.callStart.getTime()),
    callEnd: timestampFromMs(result.callEnd.getTime()),
    durationSeconds: result.durationSeconds,
    intentsUpdated: result.intentsUpdated,
    variablesUpdated: result.variablesUpdated,
  };
}

function identityToProto(identity: Identity) {
  return {
    confidence: identity.confidence,
    level: LEVELS[identity.level],
    sources: [...identity.sources],
    recommendation: RECOMMENDATIONS[identity.recommendation],
  };
}

const LINE_TYPES: Record<number, DomainLineType | undefined> = {
  [LineType.MOBILE]: "mobile",
  [LineType.LANDLINE]: "landline",
  [LineType.VOIP]: "voip",
  [LineType.UNKNOWN]: "unknown",
};

const INTENT_STATUSES: Record<number, DomainIntentStatus | undefined> = {
  [IntentStatus.OPEN]: "open",
  [IntentStatus.RESOLVED]: "resolved",
};

const LEVELS: Record<Identity["level"], IdentityLevel> = {
  low: IdentityLevel.LOW,
  medium: IdentityLevel.MEDIUM,
  high: IdentityLevel.HIGH,
  very_high: IdentityLevel.VERY_HIGH,
};

const RECOMMENDATIONS: Record<Identity["recommendation"], Recommendation> = {
  reuse: Recommendation.REUSE,
  confirm: Recommendation.CONFIRM,
  ignore: Recommendation.IGNORE,
};
