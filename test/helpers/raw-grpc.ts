import http2 from "node:http2";
import * as grpc from "@grpc/grpc-js";

// gRPC requests whose payload is whatever bytes a test chooses: through the
// real @grpc/grpc-js client (the bytes become the message), or over a bare
// HTTP/2 stream when the framing itself must be wrong.

export interface RawGrpcAnswer {
  readonly code: grpc.status;
  readonly details: string;
}

/** One unary call whose message is `payload` exactly, as grpc-js frames it. */
export function callWithBytes(
  client: grpc.Client,
  path: string,
  payload: Buffer,
  headers: Record<string, string>,
  deadlineMs: number,
): Promise<RawGrpcAnswer> {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (bytes: Buffer) => bytes,
      (bytes: Buffer) => bytes,
      payload,
      metadata,
      { deadline: Date.now() + deadlineMs },
      (error) => resolve(error ? { code: error.code, details: error.details } : { code: grpc.status.OK, details: "" }),
    );
  });
}

/** A gRPC length-prefixed frame: flag byte, declared length, payload. */
export function grpcFrame(payload: Buffer, options: { compressed?: boolean; declaredLength?: number } = {}): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = options.compressed ? 1 : 0;
  prefix.writeUInt32BE(options.declaredLength ?? payload.length, 1);
  return Buffer.concat([prefix, payload]);
}

/**
 * Sends `body` as the whole request stream of a gRPC call over h2c and
 * returns its status, from the trailers or a trailers-only response.
 */
export async function postGrpcBody(
  baseUrl: string,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<RawGrpcAnswer> {
  const session = http2.connect(baseUrl);
  session.on("error", () => {}); // reported through the stream
  try {
    return await new Promise<RawGrpcAnswer>((resolve, reject) => {
      const stream = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
        ...headers,
      });
      const timer = setTimeout(() => {
        stream.close();
        reject(new Error(`no gRPC status within ${timeoutMs} ms`));
      }, timeoutMs);
      // The status settles the call, even while the server declines to read
      // the rest of a body it has already refused.
      const take = (received: http2.IncomingHttpHeaders) => {
        const code = received["grpc-status"];
        if (code === undefined) return;
        const message = received["grpc-message"];
        clearTimeout(timer);
        resolve({
          code: Number(code) as grpc.status,
          details: decodeURIComponent(typeof message === "string" ? message : ""),
        });
        stream.close(http2.constants.NGHTTP2_CANCEL);
      };
      stream.on("response", take);
      stream.on("trailers", take);
      stream.on("data", () => {});
      stream.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      stream.on("close", () => {
        clearTimeout(timer);
        reject(new Error(`stream closed without a gRPC status (code ${stream.rstCode})`));
      });
      stream.end(body);
    });
  } finally {
    session.close();
  }
}
