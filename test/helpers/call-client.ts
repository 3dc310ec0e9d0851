import { randomUUID } from "node:crypto";
import type { DescMethodUnary } from "@bufbuild/protobuf";
import type * as grpc from "@grpc/grpc-js";
import { status as grpcStatus } from "@grpc/grpc-js";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import {
  IdempotencyKeyMismatchSchema,
  QuotaExhaustedSchema,
  RateLimitExceededSchema,
  ValidationFailureSchema,
} from "../../gen/callercontext/v1/errors_pb.ts";
import { decodeMessage, encodeMessage, type JsonIssue } from "../../src/http/json-codec.ts";
import { callUnary, createGrpcClient, grpcErrorDetails } from "./grpc-client.ts";
import { post } from "./rest-client.ts";

// The two billable calls over either wire, with one shape of result, so a
// rule can be proved over REST and gRPC by the same test. The gRPC side
// builds its messages from the same JSON bodies.

export type Transport = "rest" | "grpc";
export const TRANSPORTS: readonly Transport[] = ["rest", "grpc"];

export interface CallOutcome {
  /**
   * The HTTP status over REST. Over gRPC, the status the REST contract gives
   * the same outcome: the code, refined by its typed detail (RESOURCE_EXHAUSTED
   * with QuotaExhausted is 402, with RateLimitExceeded 429; INVALID_ARGUMENT
   * with IdempotencyKeyMismatch 422); 0 for a code with no such meaning.
   */
  readonly status: number;
  /** Response headers over REST; headers and trailers over gRPC. */
  readonly headers: Record<string, string>;
  /**
   * The JSON body over REST. Over gRPC, the response message in the
   * contract's JSON (the REST host's own codec), or for an error
   * {message, details?: {issues}} from the status and its ValidationFailure.
   */
  readonly body: any;
  readonly grpcError?: grpc.ServiceError;
}

export interface CallClient {
  start(
    via: Transport,
    apiKey: string | undefined,
    body: object,
    headers?: Record<string, string>,
  ): Promise<CallOutcome>;
  end(via: Transport, apiKey: string | undefined, body: object, headers?: Record<string, string>): Promise<CallOutcome>;
  close(): void;
}

export function createCallClient(baseUrl: string): CallClient {
  const client = createGrpcClient(baseUrl);
  const call = async (
    method: DescMethodUnary,
    path: string,
    via: Transport,
    apiKey: string | undefined,
    body: object,
    headers: Record<string, string> = {},
  ): Promise<CallOutcome> => {
    if (via === "rest") {
      const res = await post(baseUrl, path, apiKey, body, headers);
      return { status: res.status, headers: Object.fromEntries(res.headers), body: res.body };
    }
    const issues: JsonIssue[] = [];
    const message = decodeMessage(method.input, body, issues);
    if (issues.length > 0) throw new Error(`test body does not fit the proto: ${JSON.stringify(issues)}`);
    const metadata: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) metadata[name.toLowerCase()] = value;
    if (apiKey !== undefined) metadata.authorization = `Bearer ${apiKey}`;
    const { response, error, metadata: received } = await callUnary(client, method, message as never, metadata);
    return {
      status: grpcOutcomeStatus(error),
      headers: received,
      body: error === undefined ? encodeMessage(method.output, response as never) : grpcErrorBody(error),
      grpcError: error,
    };
  };
  const { startCall, endCall } = CallerContextService.method;
  return {
    start: (via, apiKey, body, headers) =>
      call(startCall as DescMethodUnary, "/v1/calls/start", via, apiKey, body, headers),
    end: (via, apiKey, body, headers) => call(endCall as DescMethodUnary, "/v1/calls/end", via, apiKey, body, headers),
    close: () => client.close(),
  };
}

/** One key's calls over one transport, for suites that run every case over both. */
export interface KeyedCallClient {
  readonly via: Transport;
  start(body: object, headers?: Record<string, string>): Promise<CallOutcome>;
  end(body: object, headers?: Record<string, string>): Promise<CallOutcome>;
}

export function forKey(client: CallClient, via: Transport, apiKey: string): KeyedCallClient {
  return {
    via,
    start: (body, headers) => client.start(via, apiKey, body, headers),
    end: (body, headers) => client.end(via, apiKey, body, headers),
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

export function grpcOutcomeStatus(error: grpc.ServiceError | undefined): number {
  if (error === undefined) return 200;
  if (error.code === grpcStatus.RESOURCE_EXHAUSTED) {
    if (grpcErrorDetails(error, QuotaExhaustedSchema).length > 0) return 402;
    if (grpcErrorDetails(error, RateLimitExceededSchema).length > 0) return 429;
    return 0;
  }
  if (grpcErrorDetails(error, IdempotencyKeyMismatchSchema).length > 0) return 422;
  return STATUS_OF_CODE[error.code] ?? 0;
}

export function grpcErrorBody(error: grpc.ServiceError) {
  const [validation] = grpcErrorDetails(error, ValidationFailureSchema);
  return {
    message: error.details,
    ...(validation
      ? { details: { issues: validation.issues.map((i) => ({ path: i.path, message: i.message })) } }
      : {}),
  };
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
