import type http2 from "node:http2";
import { type DescMethodUnary, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createHandlerContext, createServiceImplSpec, type Interceptor } from "@connectrpc/connect";
import { compressedFlag, encodeEnvelope, invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { FastifyBaseLogger } from "fastify";
import { headerObject, headersFrom } from "../pipeline/headers.ts";
import { publicError } from "../pipeline/public-error.ts";
import type { RequestObservers } from "../pipeline/request-scope.ts";
import { enterMethod } from "../pipeline/request-scope.ts";
import { logUnexpected } from "../pipeline/unexpected-errors.ts";
import { openRequest, requestIdOf } from "./request-pipeline.ts";
import type { EarlyRefusal, RestService } from "./rest-adapter.ts";

// Unary gRPC calls with uncompressed messages, served straight from the h2c
// stream: the same implementation through the same interceptor array as
// every other protocol, without the general streaming machinery Connect's
// handler runs for each call (a start sits on the path of a ringing phone).
// Everything else that is gRPC (compressed messages, JSON codec, gRPC-Web,
// streaming methods) goes to Connect's handler, as do Connect and REST.

type ImplSpec = Parameters<typeof invokeUnaryImplementation>[0];

interface UnaryRoute {
  readonly method: DescMethodUnary;
  readonly spec: ImplSpec;
}

export interface GrpcUnaryOptions {
  /** The largest message accepted, as for every other protocol. */
  readonly readMaxBytes: number;
  readonly log: FastifyBaseLogger;
  readonly observers: RequestObservers;
  /** The admission control's refusal before the message is read and decoded. */
  readonly refuseEarly?: EarlyRefusal;
}

/** Handles the request and returns true when it is one of ours; returns false otherwise. */
export type GrpcUnaryHandler = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => boolean;

const FRAME_HEADER_BYTES = 5;
/** Why a finished call's signal is aborted (its deadline timer stops); a reason spares building a DOMException. */
const CALL_FINISHED = new ConnectError("the call has finished", Code.Canceled);
const CONTENT_TYPE = "application/grpc+proto";

export function createGrpcUnaryHandler(
  services: readonly RestService[],
  interceptors: Interceptor[],
  options: GrpcUnaryOptions,
): GrpcUnaryHandler {
  const routes = new Map<string, UnaryRoute>();
  for (const { service, implementation } of services) {
    const spec = createServiceImplSpec(service, implementation as never);
    for (const method of service.methods) {
      if (method.methodKind !== "unary") continue;
      routes.set(`/${service.typeName}/${method.name}`, {
        method: method as DescMethodUnary,
        spec: spec.methods[method.localName] as ImplSpec,
      });
    }
  }
  return (req, res) => {
    const route = routes.get(req.url);
    if (route === undefined || req.method !== "POST" || !isPlainGrpc(req.headers)) return false;
    void serve(route, interceptors, options, req, res);
    return true;
  };
}

/** Binary gRPC with no message compression: what this handler serves. */
function isPlainGrpc(headers: http2.IncomingHttpHeaders): boolean {
  const type = headers["content-type"];
  if (type !== "application/grpc" && type !== CONTENT_TYPE) return false;
  const encoding = headers["grpc-encoding"];
  return encoding === undefined || encoding === "identity";
}

async function serve(
  route: UnaryRoute,
  interceptors: Interceptor[],
  options: GrpcUnaryOptions,
  req: http2.Http2ServerRequest,
  res: http2.Http2ServerResponse,
): Promise<void> {
  const scope = openRequest(options.observers, req, res, {
    requestId: requestIdOf(req.headers["x-request-id"]),
    peer: req.socket?.remoteAddress ?? "unknown",
    // h2c: TLS, when there is any, ends at a proxy, which gRPC's path does not ask about.
    scheme: "http",
  });
  enterMethod(scope, { method: route.method });
  const refused = options.refuseEarly?.(route.method);
  if (refused !== undefined) {
    enterMethod(scope, { code: refused.code });
    answer(req, res, {}, setTrailerStatus(new Headers(), refused), undefined);
    return;
  }
  const requestHeader = headersFrom(req.headers);
  const timeout = parseTimeout(requestHeader.get("grpc-timeout"), Number.MAX_SAFE_INTEGER);
  const context = createHandlerContext({
    service: route.method.parent,
    method: route.method,
    protocolName: "grpc",
    requestMethod: "POST",
    url: req.url,
    timeoutMs: timeout.timeoutMs,
    requestSignal: scope.signal,
    requestHeader,
    contextValues: scope.values,
  });
  let reply: Uint8Array | undefined;
  let failure: ConnectError | undefined;
  try {
    if (timeout.error) throw timeout.error;
    const body = await readMessage(req, options.readMaxBytes);
    const input = parseMessage(route.method, body);
    const output = await invokeUnaryImplementation(route.spec, context, input as never, interceptors);
    reply = encodeEnvelope(0, toBinary(route.method.output, output as never));
  } catch (thrown) {
    // What the chain threw was logged by its error boundary and is public by now: only a failure before it is new.
    logUnexpected(options.log, thrown, { reqId: scope.requestId, rpc: route.method.name });
    failure = publicError(thrown);
  } finally {
    context.abort(CALL_FINISHED);
  }
  // Also for calls refused before the interceptors (an unreadable message): the client gets this code.
  enterMethod(scope, { code: failure?.code ?? 0 });
  answer(req, res, headerObject(context.responseHeader), setTrailerStatus(context.responseTrailer, failure), reply);
}

function answer(
  req: http2.Http2ServerRequest,
  res: http2.Http2ServerResponse,
  header: Record<string, string>,
  trailer: Headers,
  reply: Uint8Array | undefined,
): void {
  // A client that went away (or reset the stream on its deadline) is answered no more: Node's stream is
  // destroyed by then, and writing to it throws.
  const stream = res.stream;
  if (stream === undefined || stream.destroyed || stream.closed) return;
  if (reply === undefined) {
    // No message (a refusal, an error): gRPC's Trailers-Only answer, the status in one HEADERS frame that ends
    // the stream, sent in one write. Trailers after a message wait for Node's stream to shut down, loop turns
    // later (docs/performance-log.md, "A gRPC answer is two writes").
    const status = { ...header, "content-type": CONTENT_TYPE, ...headerObject(trailer), ":status": 200 };
    stream.respond(status, { endStream: true });
    // The stream has ended; the compatibility response is told too, so the request is reported as answered
    // (writableEnded), not as a client that went away. It sends nothing more.
    res.end();
  } else {
    res.writeHead(200, { ...header, "content-type": CONTENT_TYPE });
    res.addTrailers(headerObject(trailer));
    res.end(reply);
  }
  // A refused request may still be sending its body: it is not read any further.
  req.resume();
}

/** The one length-prefixed message of a unary request. */
function readMessage(req: http2.Http2ServerRequest, readMaxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const fail = (error: ConnectError) => {
      req.off("data", onData);
      req.off("end", onEnd);
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length > FRAME_HEADER_BYTES + readMaxBytes) {
        fail(new ConnectError(`message is larger than ${readMaxBytes} bytes`, Code.ResourceExhausted));
      }
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length));
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", () => fail(new ConnectError("the request stream failed", Code.Canceled)));
  });
}

/**
 * The message of a unary request body: exactly one uncompressed envelope. The
 * statuses are the ones Connect's handler gives the same faults. Read here
 * rather than through Connect's envelope stream (createEnvelopeReadableStream):
 * the body is already whole, and a stream per call is what this path avoids.
 */
function parseMessage(method: DescMethodUnary, body: Uint8Array): unknown {
  if (body.length === 0) {
    throw new ConnectError("protocol error: missing input message for unary method", Code.Unimplemented);
  }
  if (body.length < FRAME_HEADER_BYTES)
    throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const flags = view.getUint8(0);
  const declared = view.getUint32(1);
  const end = FRAME_HEADER_BYTES + declared;
  if (body.length < end) throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  if (body.length > end) {
    throw new ConnectError("protocol error: received extra input message for unary method", Code.Unimplemented);
  }
  if ((flags & compressedFlag) !== 0) {
    throw new ConnectError("protocol error: received compressed envelope without grpc-encoding", Code.InvalidArgument);
  }
  try {
    return fromBinary(method.input, body.subarray(FRAME_HEADER_BYTES, end));
  } catch (error) {
    throw new ConnectError(`parse binary: ${(error as Error).message}`, Code.InvalidArgument);
  }
}
