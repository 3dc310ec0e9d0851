import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { IntentStatus } from "../../gen/callercontext/v1/caller_context_pb.ts";
import type { CustomerSummarySchema } from "../../gen/callercontext/v1/customers_pb.ts";
import type { CustomerRecord, CustomerSummary } from "../domain/customer.ts";
import { callIntentsToProto, variablesToProto } from "./call-mapping.ts";

// domain → proto for customer records. GetCustomerResponse,
// MergeCustomersResponse and UnlinkIdentifierResponse share their fields.

/** Fits the init shape of all three responses (typed by inference: they differ only in $typeName). */
export function customerRecordToProto(record: CustomerRecord) {
  return {
    customerRef: record.customerRef,
    createdAt: timestampFromMs(record.createdAt.getTime()),
    lastCallAt: timestampFromMs(record.lastCallAt.getTime()),
    identifiers: {
      ani: [...record.ani],
      externalIds: record.externalIds.map(([key, value]) => ({ key, value })),
    },
    openIntents: record.openIntents.map((intent) => ({
      intent: intent.intent,
      status: IntentStatus.OPEN,
      attemptCount: intent.attemptCount,
    })),
    resolvedIntents: record.resolvedIntents.map((intent) => ({
      intent: intent.intent,
      status: IntentStatus.RESOLVED,
      resolution:
        intent.resolutionType === null && intent.resolutionExternalReference === null
          ? undefined
          : { type: intent.resolutionType ?? "", externalReference: intent.resolutionExternalReference ?? "" },
      resolvedAt: timestampFromMs(intent.resolvedAt.getTime()),
    })),
    variables: variablesToProto(record.variables),
    calls: record.calls.map((call) => ({
      callId: call.callId,
      callStart: timestampFromMs(call.callStart.getTime()),
      callEnd: call.callEnd === null ? undefined : timestampFromMs(call.callEnd.getTime()),
      durationSeconds: call.callEnd === null ? undefined : (call.callEnd.getTime() - call.callStart.getTime()) / 1000,
      summary: call.summary ?? undefined,
      intents: callIntentsToProto(call.intents),
    })),
  };
}

export function customerSummaryToProto(summary: CustomerSummary): MessageInitShape<typeof CustomerSummarySchema> {
  return { customerRef: summary.customerRef, lastCallAt: timestampFromMs(summary.lastCallAt.getTime()) };
}
