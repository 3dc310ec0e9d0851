import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import {
  type EndCallRequest,
  EndCallRequestSchema,
  EndCallResponseSchema,
  IntentStatus,
  LineType,
  type StartCallRequest,
  StartCallRequestSchema,
  StartCallResponseSchema,
} from "../../gen/callercontext/v1/caller_context_pb.ts";
import { type CallDriver, CLIENT_TIMEOUT, RequestFailure } from "./call-driver.ts";

// gRPC over h2c with @grpc/grpc-js, as a voice platform calls the service:
// binary protobuf messages over one channel or a few (each its own HTTP/2
// connection, calls taking turns over them).

const SERVICE = "/callercontext.v1.CallerContextService";
const REQUEST_TIMEOUT_MS = 10_000;

const serializeStart = (message: StartCallRequest) => Buffer.from(toBinary(StartCallRequestSchema, message));
const serializeEnd = (message: EndCallRequest) => Buffer.from(toBinary(EndCallRequestSchema, message));
const deserializeStart = (bytes: Buffer) => fromBinary(StartCallResponseSchema, bytes);
const deserializeEnd = (bytes: Buffer) => fromBinary(EndCallResponseSchema, bytes);

export function createGrpcDriver(baseUrl: string, apiKeys: readonly string[], channels = 1): CallDriver {
  // Without a subchannel pool of their own, grpc-js's channels to one address share one connection.
  const clients = Array.from(
    { length: channels },
    () =>
      new grpc.Client(new URL(baseUrl).host, grpc.credentials.createInsecure(), {
        "grpc.use_local_subchannel_pool": 1,
      }),
  );
  let turn = 0;
  const nextClient = () => clients[turn++ % clients.length];
  const authorizations = apiKeys.map((key) => `Bearer ${key}`);
  let sent = 0;

  const metadata = (idempotencyKey?: string) => {
    const md = new grpc.Metadata();
    md.set("authorization", authorizations[sent++ % authorizations.length]);
    if (idempotencyKey !== undefined) md.set("idempotency-key", idempotencyKey);
    return md;
  };
  const deadline = () => ({ deadline: Date.now() + REQUEST_TIMEOUT_MS });
  // grpc-js ends a call past the client's own deadline with DEADLINE_EXCEEDED; the service answers late calls UNAVAILABLE.
  const failure = (error: grpc.ServiceError) =>
    new RequestFailure(
      error.code === grpc.status.DEADLINE_EXCEEDED ? CLIENT_TIMEOUT : `grpc ${grpc.status[error.code] ?? error.code}`,
      readable(error.details),
    );

  return {
    name: channels === 1 ? "gRPC" : `gRPC ${channels} channels`,
    start(call) {
      const request = create(StartCallRequestSchema, {
        callId: call.callId,
        identityHints: {
          ani: call.ani,
          dnis: call.dnis,
          externalIds: call.crmId === undefined ? {} : { crm_id: call.crmId },
        },
        telco: call.mobile ? { lineType: LineType.MOBILE } : undefined,
      });
      return new Promise((resolve, reject) => {
        nextClient().makeUnaryRequest(
          `${SERVICE}/StartCall`,
          serializeStart,
          deserializeStart,
          request,
          metadata(),
          deadline(),
          (error, response) => {
            if (error) reject(failure(error));
            else if (!response?.customerRef) reject(new RequestFailure("no customer_ref"));
            else resolve(response.customerRef);
          },
        );
      });
    },
    end(call, customerRef) {
      const request = create(EndCallRequestSchema, {
        callId: call.callId,
        customerRef,
        intent: call.intent,
        intentStatus: call.intentStatus === "open" ? IntentStatus.OPEN : IntentStatus.RESOLVED,
        variables: { ...call.variables },
      });
      return new Promise((resolve, reject) => {
        nextClient().makeUnaryRequest(
          `${SERVICE}/EndCall`,
          serializeEnd,
          deserializeEnd,
          request,
          metadata(call.idempotencyKey),
          deadline(),
          (error) => {
            if (error) reject(failure(error));
            else resolve();
          },
        );
      });
    },
    async close() {
      for (const client of clients) client.close();
    },
  };
}

/** grpc-js leaves some percent-escapes of grpc-message in place (";" as %3B). */
function readable(details: string): string {
  try {
    return decodeURIComponent(details);
  } catch {
    return details;
  }
}
