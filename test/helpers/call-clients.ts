import type { DescMethodUnary } from "@bufbuild/protobuf";
import type * as grpc from "@grpc/grpc-js";
import { status as grpcStatus } from "@grpc/grpc-js";
import { CallerContextService } from "../../gen/callercontext/v1/caller_context_pb.ts";
import { IdempotencyKeyMismatchSchema, ValidationFailureSchema } from "../../gen/callercontext/v1/errors_pb.ts";
import { decodeMessage, encodeMessage } from "../../src/http/json-codec.ts";
import { callUnary, createGrpcClient, grpcErrorDetails } from "./grpc-client.ts";
import { post } from "./rest-client.ts";

// One client interface over both protocols, so each rule's test runs once
// over REST and once over gRPC. The gRPC side builds its messages from the
// same JSON bodies and reports outcomes as the equivalent HTTP status.

export interface CallOutcome {
  readonly status: number;
  readonly body: any;
}

export interface CallClient {
  readonly protocol: "REST" | "gRPC";
  start(body: Record<string, unknown>, headers?: Record<string, string>): Promise<CallOutcome>;
  end(body: Record<string, unknown>, headers?: Record<string, string>): Promise<CallOutcome>;
  close(): void;
}

export function createRestCallClient(baseUrl: string, apiKey: string): CallClient {
  const outcome = async (response: Promise<CallOutcome>) => {
    const { status, body } = await response;
    return { status, body };
  };
  return {
    protocol: "REST",
    start: (body, headers) => outcome(post(baseUrl, "/v1/calls/start", apiKey, body, headers)),
    end: (body, headers) => outcome(post(baseUrl, "/v1/calls/end", apiKey, body, headers)),
    close() {},
  };
}

const HTTP_STATUS: Partial<Record<grpcStatus, number>> = {
  [grpcStatus.INVALID_ARGUMENT]: 400,
  [grpcStatus.UNAUTHENTICATED]: 401,
  [grpcStatus.NOT_FOUND]: 404,
  [grpcStatus.ALREADY_EXISTS]: 409,
  [grpcStatus.FAILED_PRECONDITION]: 409,
  [grpcStatus.RESOURCE_EXHAUSTED]: 429,
  [grpcStatus.UNAVAILABLE]: 503,
};

export function createGrpcCallClient(baseUrl: string, apiKey: string): CallClient {
  const client = createGrpcClient(baseUrl);
  const invoke = async (
    method: DescMethodUnary,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) => {
    const issues: { path: string[]; message: string }[] = [];
    const message = decodeMessage(method.input, body, issues);
    if (issues.length > 0) throw new Error(`test body does not fit the proto: ${JSON.stringify(issues)}`);
    const result = await callUnary(client, method, message as never, {
      authorization: `Bearer ${apiKey}`,
      ...lowerCaseKeys(headers),
    });
    if (result.error === undefined)
      return { status: 200, body: encodeMessage(method.output, result.response as never) };
    return { status: statusOf(result.error), body: errorBody(result.error) };
  };
  return {
    protocol: "gRPC",
    start: (body, headers) => invoke(CallerContextService.method.startCall as DescMethodUnary, body, headers),
    end: (body, headers) => invoke(CallerContextService.method.endCall as DescMethodUnary, body, headers),
    close: () => client.close(),
  };
}

function statusOf(error: grpc.ServiceError): number {
  if (grpcErrorDetails(error, IdempotencyKeyMismatchSchema).length > 0) return 422;
  return HTTP_STATUS[error.code as grpcStatus] ?? 500;
}

function errorBody(error: grpc.ServiceError) {
  const [validation] = grpcErrorDetails(error, ValidationFailureSchema);
  return {
    message: error.details,
    ...(validation
      ? { details: { issues: validation.issues.map((i) => ({ path: i.path, message: i.message })) } }
      : {}),
  };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Both clients for one key, for `describe.each`. */
export function bothProtocols(baseUrl: () => string, apiKey: () => string) {
  return [
    { protocol: "REST", connect: () => createRestCallClient(baseUrl(), apiKey()) },
    { protocol: "gRPC", connect: () => createGrpcCallClient(baseUrl(), apiKey()) },
  ] as const;
}
