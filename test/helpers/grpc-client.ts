import {
  create,
  type DescMessage,
  type DescMethodUnary,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { findTrailerError } from "@connectrpc/connect/protocol-grpc";
import * as grpc from "@grpc/grpc-js";

// A real @grpc/grpc-js client over h2c, the way a voice-AI stack calls us.
// Messages are (de)serialised with the generated protobuf-es schemas.

export interface GrpcResult<O extends DescMessage> {
  readonly response?: MessageShape<O>;
  readonly error?: grpc.ServiceError;
  /** Response headers and trailers, merged. */
  readonly metadata: Record<string, string>;
}

export function createGrpcClient(baseUrl: string): grpc.Client {
  return new grpc.Client(new URL(baseUrl).host, grpc.credentials.createInsecure());
}

export function callUnary<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  method: DescMethodUnary<I, O>,
  input: MessageInitShape<I>,
  headers: Record<string, string> = {},
  options: { deadlineMs?: number } = {},
): Promise<GrpcResult<O>> {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
  const received: Record<string, string> = {};
  const keep = (md: grpc.Metadata) => {
    for (const [name, value] of Object.entries(md.getMap())) received[name] = String(value);
  };
  return new Promise((resolve) => {
    const call = client.makeUnaryRequest(
      `/${method.parent.typeName}/${method.name}`,
      (message: MessageShape<I>) => Buffer.from(toBinary(method.input, message)),
      (bytes: Buffer) => fromBinary(method.output, bytes),
      create(method.input, input),
      metadata,
      options.deadlineMs === undefined ? {} : { deadline: Date.now() + options.deadlineMs },
      (error, response) => {
        if (error) keep(error.metadata);
        resolve({ response: response ?? undefined, error: error ?? undefined, metadata: received });
      },
    );
    call.on("metadata", keep);
    call.on("status", (status) => keep(status.metadata));
  });
}

/**
 * The typed details of a gRPC error, decoded from grpc-status-details-bin
 * (a google.rpc.Status) with Connect's own trailer parser.
 */
export function grpcErrorDetails<D extends DescMessage>(
  error: grpc.ServiceError | undefined,
  schema: D,
): MessageShape<D>[] {
  if (error === undefined) return [];
  const trailer = new Headers();
  trailer.set("grpc-status", String(error.code));
  trailer.set("grpc-message", encodeURIComponent(error.details));
  const bin = error.metadata.get("grpc-status-details-bin")[0];
  if (bin !== undefined)
    trailer.set(
      "grpc-status-details-bin",
      Buffer.from(bin as Buffer)
        .toString("base64")
        .replace(/=+$/, ""),
    );
  return findTrailerError(trailer)?.findDetails(schema) ?? [];
}
