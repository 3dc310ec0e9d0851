import { randomUUID } from "node:crypto";
import { type DescMessage, type DescMethodUnary, fromJson, type JsonValue, toJson } from "@bufbuild/protobuf";
import type * as grpc from "@grpc/grpc-js";
import { status as grpcStatus } from "@grpc/grpc-js";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { QuotaExhaustedSchema, RateLimitExceededSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { callUnary, createGrpcClient, grpcErrorDetails } from "./grpc-client.ts";
import { post } from "./rest-client.ts";

// The two billable calls over either wire, with one shape of result, so a
// guard rule can be proved over REST and gRPC by the same test.

export type Transport = "rest" | "grpc";
export const TRANSPORTS: readonly Transport[] = ["rest", "grpc"];

export interface CallOutcome {
  /**
   * The HTTP status over REST. Over gRPC, the status a client derives from
   * the code and its typed detail (RESOURCE_EXHAUSTED + QuotaExhausted is 402,
   * + RateLimitExceeded is 429); 0 for a code with no such meaning.
   */
  readonly status: number;
  /** Response headers over REST; headers and trailers over gRPC. */
  readonly headers: Record<string, string>;
  /**
   * The JSON body over REST. Over gRPC, the response message in proto JSON
   * with the proto field names (call_id, customer_ref) and zero values shown;
   * undefined for an error.
   */
  readonly body: any;
  readonly grpcError?: grpc.ServiceError;
}

export interface CallClient {
  start(via: Transport, apiKey: string | undefined, body: JsonValue): Promise<CallOutcome>;
  end(via: Transport, apiKey: string | undefined, body: JsonValue): Promise<CallOutcome>;
  close(): void;
}

export function createCallClient(baseUrl: string): CallClient {
  const client = createGrpcClient(baseUrl);
  const call = async <I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    path: string,
    via: Transport,
    apiKey: string | undefined,
    body: JsonValue,
  ): Promise<CallOutcome> => {
    if (via === "rest") {
      const res = await post(baseUrl, path, apiKey, body);
      return { status: res.status, headers: Object.fromEntries(res.headers), body: res.body };
    }
    const auth: Record<string, string> = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
    const { response, error, metadata } = await callUnary(client, method, fromJson(method.input, body), auth);
    const json =
      response === undefined
        ? undefined
        : toJson(method.output, response, { useProtoFieldName: true, alwaysEmitImplicit: true });
    return { status: grpcOutcomeStatus(error), headers: metadata, body: json, grpcError: error };
  };
  return {
    start: (via, apiKey, body) => call(CallerContextService.method.startCall, "/v1/calls/start", via, apiKey, body),
    end: (via, apiKey, body) => call(CallerContextService.method.endCall, "/v1/calls/end", via, apiKey, body),
    close: () => client.close(),
  };
}

const STATUS_OF_CODE: Partial<Record<grpcStatus, number>> = {
  [grpcStatus.INVALID_ARGUMENT]: 400,
  [grpcStatus.UNAUTHENTICATED]: 401,
  [grpcStatus.NOT_FOUND]: 404,
  [grpcStatus.ALREADY_EXISTS]: 409,
  [grpcStatus.FAILED_PRECONDITION]: 409,
  [grpcStatus.INTERNAL]: 500,
  [grpcStatus.UNAVAILABLE]: 503,
};

function grpcOutcomeStatus(error: grpc.ServiceError | undefined): number {
  if (error === undefined) return 200;
  if (error.code === grpcStatus.RESOURCE_EXHAUSTED) {
    if (grpcErrorDetails(error, QuotaExhaustedSchema).length > 0) return 402;
    if (grpcErrorDetails(error, RateLimitExceededSchema).length > 0) return 429;
    return 0;
  }
  return STATUS_OF_CODE[error.code] ?? 0;
}

/** The cheapest valid start: a call_id never used before and one number. */
export function startBody(callId = uniqueCallId()) {
  return { call_id: callId, identity_hints: { ani: "+14155550123" } };
}

export function uniqueCallId(prefix = "call"): string {
  return `${prefix}-${randomUUID()}`;
}

/** The guard headers of a response, by their lower-case names. */
export function guardHeaders(outcome: CallOutcome) {
  return {
    limit: outcome.headers["x-ratelimit-limit"],
    remaining: outcome.headers["x-ratelimit-remaining"],
    reset: outcome.headers["x-ratelimit-reset"],
    quota: outcome.headers["x-quota-remaining"],
  };
}

/** How many outcomes had each status, e.g. {200: 5, 402: 15}. */
export function countStatuses(outcomes: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of outcomes) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
