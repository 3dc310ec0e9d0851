import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { spreadOverListeners } from "./port-listeners.ts";

// One plaintext port for HTTP/1.1 (REST, Connect) and h2c (gRPC). Each new
// connection is routed by its first bytes: an HTTP/2 client starts with the
// preface "PRI * HTTP/2.0", every HTTP/1.1 request line with a method name.

export type RequestHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface OnePortServerOptions {
  /** How long a new connection may stay silent before it is dropped. */
  readonly firstByteTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxHeaderSize: number;
  /** Past this, close() destroys connections still open. */
  readonly shutdownGraceMs: number;
  /** Listening sockets sharing the port, so that a burst of new connections is accepted quickly (port-listeners.ts). */
  readonly listenSockets: number;
  /** Told when one of the extra listening sockets cannot listen. */
  readonly onListenerError: (error: Error) => void;
  /** Offered each HTTP/2 request first; returns true when it took it. */
  readonly h2Handler?: (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => boolean;
}

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
/** How long, and for how many more bytes, a connection closed after its response keeps being read. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * A net.Server that Fastify uses through `serverFactory`. It implements the
 * parts of http.Server Fastify calls (listen, address, close,
 * closeIdleConnections) and applies the timeouts Fastify would otherwise set.
 */
export function createOnePortServer(handler: RequestHandler, options: OnePortServerOptions): net.Server {
  const http1 = http.createServer({ maxHeaderSize: options.maxHeaderSize }, handler);
  http1.headersTimeout = options.headersTimeoutMs;
  http1.requestTimeout = options.requestTimeoutMs;
  http1.keepAliveTimeout = options.keepAliveTimeoutMs;

  const h2 = http2.createServer({ maxSessionMemory: 16 }, (req, res) => {
    if (options.h2Handler?.(req, res)) return;
    (handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void)(req, res);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  h2.setTimeout(options.keepAliveTimeoutMs * 4);

  const sockets = new Set<net.Socket>();
  // No Nagle delay: an HTTP/2 response is several small writes (headers, data,
  // trailers), and a write held back until the previous one is acknowledged
  // meets the client's delayed ACK, adding tens of milliseconds to a call.
  // http.Server sets this for the sockets it accepts; this server accepts them.
  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    routeBySniffing(socket, http1, h2, options.firstByteTimeoutMs);
  };
  const outer = net.createServer({ noDelay: true }, onConnection);
  // http.Server tracks its connections (for timeouts and closeIdleConnections)
  // only once it has seen 'listening'; it never listens itself.
  outer.on("listening", () => http1.emit("listening"));
  // Fastify answers requests Node could not parse (headers too large, a bad
  // request line, a timeout) with a JSON error, listening on the server it was given.
  http1.on("clientError", (error, socket) => outer.emit("clientError", error, socket));
  // Node drops a CONNECT request unless this event has a listener: it goes to the handler like any other method.
  http1.on("connect", (req: http.IncomingMessage, socket: net.Socket) => {
    const res = new http.ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once("finish", () => socket.end());
    handler(req, res);
  });

  const extra = spreadOverListeners(outer, {
    count: options.listenSockets,
    onConnection,
    noDelay: true,
    onListenerError: options.onListenerError,
  });
  const closeIdle = () => {
    http1.closeIdleConnections();
    for (const session of sessions) session.close();
  };
  const close = outer.close.bind(outer);
  /** Settles once every listening socket has closed and every connection has ended; undefined until close(). */
  let closed: Promise<Error | undefined> | undefined;
  Object.assign(outer, {
    closeIdleConnections: closeIdle,
    close(callback?: (error?: Error) => void) {
      if (closed === undefined) {
        const own = new Promise<Error | undefined>((resolve) => close((error) => resolve(error)));
        closeIdle();
        // Connections busy at close become idle when their response is sent;
        // keep closing them, and destroy what is still open after the grace period.
        const sweep = setInterval(closeIdle, 50);
        const deadline = setTimeout(() => {
          for (const socket of sockets) socket.destroy();
        }, options.shutdownGraceMs);
        closed = Promise.all([own, extra.close()]).then(([error]) => {
          clearInterval(sweep);
          clearTimeout(deadline);
          return error;
        });
      }
      void closed.then((error) => callback?.(error));
      return outer;
    },
  });
  return outer;
}

function routeBySniffing(socket: net.Socket, http1: http.Server, h2: http2.Http2Server, timeoutMs: number) {
  let received = Buffer.alloc(0);
  const silent = setTimeout(() => socket.destroy(), timeoutMs);
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const compared = Math.min(received.length, PREFACE.length);
    const isH2 = received.subarray(0, compared).equals(PREFACE.subarray(0, compared));
    // Three bytes ("PRI" against "POS", "PUT", "PAT") tell the two apart.
    if (isH2 && received.length < 3) return;
    clearTimeout(silent);
    socket.off("data", onData);
    socket.off("error", onError);
    socket.pause();
    socket.unshift(received);
    if (isH2) {
      // Node's HTTP/2 session reads the socket natively; resuming it here would race that read.
      h2.emit("connection", socket);
    } else {
      lingerOnClose(socket);
      http1.emit("connection", socket);
      socket.resume();
    }
  };
  const onError = () => {
    clearTimeout(silent);
    socket.destroy();
  };
  socket.on("data", onData);
  socket.on("error", onError);
}

/**
 * A lingering close. Node ends a "Connection: close" response (a 413 for a body
 * over the limit, say) with destroySoon(), which destroys the socket once the
 * response is written; if the client is still sending, the kernel answers its
 * unread bytes with a reset that can reach the client before the response does
 * (EPIPE/ECONNRESET instead of the 413). Instead: send FIN after the response,
 * keep reading (Node discards the rest of the body) until the client closes, for
 * at most LINGER_MS or LINGER_BYTES, then destroy.
 */
function lingerOnClose(socket: net.Socket): void {
  socket.destroySoon = () => {
    if (socket.destroyed) return;
    socket.end();
    const readBefore = socket.bytesRead;
    const check = setInterval(() => {
      if (socket.bytesRead - readBefore > LINGER_BYTES) socket.destroy();
    }, 100);
    const deadline = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once("close", () => {
      clearInterval(check);
      clearTimeout(deadline);
    });
  };
}
