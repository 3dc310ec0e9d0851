import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { Protocol } from "@caller-context/client";

// A proxy in front of the service that loses answers the way a network does: it forwards a request,
// receives the service's whole answer, and then drops the client's connection instead of passing it on.
// HTTP/1.1 for the Connect protocol, HTTP/2 (h2c) for gRPC.

export interface SeenRequest {
  readonly path: string;
  readonly idempotencyKey: string | undefined;
}

export interface LossyProxy {
  readonly url: string;
  readonly seen: SeenRequest[];
  /** Drops the answer of the next request whose path ends with `method` (e.g. "/EndCall"). */
  loseNextAnswer(method: string): void;
  close(): Promise<void>;
}

export async function startLossyProxy(protocol: Protocol, target: string): Promise<LossyProxy> {
  const seen: SeenRequest[] = [];
  const toLose = new Set<string>();
  const shouldLose = (path: string) => {
    for (const method of toLose) {
      if (path.endsWith(method)) return toLose.delete(method);
    }
    return false;
  };
  const server = protocol === "grpc" ? h2Proxy(target, seen, shouldLose) : h1Proxy(target, seen, shouldLose);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    loseNextAnswer: (method) => void toLose.add(method),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type ShouldLose = (path: string) => boolean;

function h1Proxy(target: string, seen: SeenRequest[], shouldLose: ShouldLose): http.Server {
  return http.createServer(async (req, res) => {
    const path = req.url ?? "/";
    seen.push({ path, idempotencyKey: header(req.headers["idempotency-key"]) });
    const body = await readAll(req);
    const upstream = http.request(new URL(path, target), { method: req.method, headers: req.headers, agent: false });
    upstream.end(body);
    const answer = await new Promise<http.IncomingMessage>((resolve) => upstream.once("response", resolve));
    const answerBody = await readAll(answer);
    if (shouldLose(path)) {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    res.end(answerBody);
  });
}

function h2Proxy(target: string, seen: SeenRequest[], shouldLose: ShouldLose): http2.Http2Server {
  const server = http2.createServer();
  const upstream = http2.connect(target);
  server.on("close", () => upstream.close());
  server.on("stream", (stream, headers) => {
    const path = String(headers[":path"]);
    seen.push({ path, idempotencyKey: header(headers["idempotency-key"]) });
    const request = upstream.request(headers);
    stream.pipe(request);
    let answerHeaders: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    request.on("response", (received) => {
      answerHeaders = received;
    });
    request.on("trailers", (received) => {
      trailers = received;
    });
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (shouldLose(path)) {
        stream.session?.destroy();
        return;
      }
      if (Object.keys(trailers).length === 0) {
        stream.respond(answerHeaders);
        stream.end(Buffer.concat(chunks));
        return;
      }
      stream.respond(answerHeaders, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers(trailers));
      stream.end(Buffer.concat(chunks));
    });
  });
  return server;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
