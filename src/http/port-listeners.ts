import net from "node:net";

// Several listening sockets on one port (SO_REUSEPORT): Node accepts one
// connection per listening socket per turn of the event loop, too few for a
// client pool that grows in a burst. Why, and what it costs: docs/operations.md, Overload.

export interface PortListenerOptions {
  /** Listening sockets on the port, 1 for a plain single socket. */
  readonly count: number;
  /** Handles every accepted connection, whichever socket accepted it. */
  readonly onConnection: (socket: net.Socket) => void;
  readonly noDelay: boolean;
  /** Told when one of the extra sockets cannot listen (the port is then served by fewer). */
  readonly onListenerError: (error: Error) => void;
}

export interface ExtraListeners {
  /** Closes the extra sockets; settles once each has closed and its connections have ended. */
  close(): Promise<void>;
}

/**
 * Makes `server.listen(options)` with a TCP port bind the port once unshared
 * (so a port in use fails with EADDRINUSE as a single socket would), then
 * listen on it shared, and open count - 1 more sockets on it. The server's
 * own close() leaves the extra sockets to the returned handle.
 */
export function spreadOverListeners(server: net.Server, options: PortListenerOptions): ExtraListeners {
  const extra: net.Server[] = [];
  let closed = false;
  const close = async () => {
    closed = true;
    await Promise.all(
      extra.splice(0).map((listener) => new Promise<void>((resolve) => listener.close(() => resolve()))),
    );
  };
  if (options.count <= 1) return { close };

  const listen = server.listen.bind(server) as (...args: unknown[]) => net.Server;
  server.listen = ((...args: unknown[]) => {
    if (typeof args[0] !== "object" || args[0] === null || !("port" in args[0])) return listen(...args);
    const wanted = args[0] as net.ListenOptions;
    const { port, host, ipv6Only } = wanted;
    const check = net.createServer();
    check.once("error", (error) => server.emit("error", error));
    check.listen({ port, host, ipv6Only, exclusive: true }, () => {
      const bound = (check.address() as net.AddressInfo).port;
      check.close(() => {
        if (closed) return;
        server.once("listening", () => {
          for (let n = 1; n < options.count && !closed; n++) {
            const listener = net.createServer({ noDelay: options.noDelay }, options.onConnection);
            listener.on("error", (error) => {
              options.onListenerError(error);
              listener.close();
            });
            listener.listen({ ...wanted, port: bound, reusePort: true });
            extra.push(listener);
          }
        });
        listen({ ...wanted, port: bound, reusePort: true });
      });
    });
    return server;
  }) as typeof server.listen;
  return { close };
}
