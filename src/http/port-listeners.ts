import net from "node:net";

// Node accepts one connection per listening socket per turn of the event loop
// (libuv pull request 3696, "don't accept() connections in a loop"). When a
// busy loop turns 30 times a second and a client
// opens 200 connections at once (a connection pool growing in a burst), the
// last of them waits seconds in the kernel's accept queue with its request
// already sent, and even a refusal reaches it late. Several listening sockets
// on the one port (SO_REUSEPORT; the kernel spreads new connections over
// them) accept that many connections per turn.
//
// SO_REUSEPORT would also let a second process bind the port and silently
// share it. Before listening, the port is bound once without it: a port
// already taken, by anything, fails with EADDRINUSE as a single socket would.

export interface PortListenerOptions {
  /** Listening sockets on the port, 1 for a plain single socket. */
  readonly count: number;
  /** Handles every accepted connection, whichever socket accepted it. */
  readonly onConnection: (socket: net.Socket) => void;
  readonly noDelay: boolean;
}

/**
 * Makes `server.listen` open `count` sockets on the port it is given (the
 * server's own and count - 1 more) and `server.close` close them all. Only
 * `listen(options)` with a TCP port is spread; anything else listens as usual.
 */
export function spreadOverListeners(server: net.Server, options: PortListenerOptions): void {
  if (options.count <= 1) return;
  const extra: net.Server[] = [];
  const listen = server.listen.bind(server) as (options: net.ListenOptions) => net.Server;
  const close = server.close.bind(server);

  server.listen = ((...args: unknown[]) => {
    const [listenOptions] = args;
    if (typeof listenOptions !== "object" || listenOptions === null || !("port" in listenOptions)) {
      return (listen as (...a: unknown[]) => net.Server)(...args);
    }
    const wanted = listenOptions as net.ListenOptions;
    const check = net.createServer();
    check.once("error", (error) => server.emit("error", error));
    check.listen({ port: wanted.port, host: wanted.host, ipv6Only: wanted.ipv6Only, exclusive: true }, () => {
      const { port } = check.address() as net.AddressInfo;
      check.close(() => {
        server.once("listening", () => {
          for (let n = 1; n < options.count; n++) {
            const listener = net.createServer({ noDelay: options.noDelay }, options.onConnection);
            // The first socket already holds the port; one more that fails only accepts less.
            listener.on("error", () => listener.close());
            listener.listen({ ...wanted, port, reusePort: true });
            extra.push(listener);
          }
        });
        listen({ ...wanted, port, reusePort: true });
      });
    });
    return server;
  }) as typeof server.listen;

  // Closed when every socket is: each one's close waits for the connections it accepted.
  server.close = ((callback?: (error?: Error) => void) => {
    const others = extra.splice(0).map((listener) => new Promise<void>((resolve) => listener.close(() => resolve())));
    return close((error) => {
      void Promise.all(others).then(() => callback?.(error));
    });
  }) as typeof server.close;
}
