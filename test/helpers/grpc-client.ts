import {
  create,
  type DescMessage,
  type DescMethodUnary,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
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
      (error, response) => {
        if (error) keep(error.metadata);
        resolve({ response: response ?? undefined, error: error ?? undefined, metadata: received });
      },
    );
    call.on("metadata", keep);
    call.on("status", (status) => keep(status.metadata));
  });
}
