import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createOnePortServer } from "../../src/http/one-port-server.ts";
import { type ExtraListeners, spreadOverListeners } from "../../src/http/port-listeners.ts";

// A client pool that grows in a burst opens many connections at once. Node
// accepts one connection per listening socket per turn of the event loop, so
// a busy loop takes one turn per connection; the service listens on several
// sockets sharing its port. These tests count turns of the loop, not time.

const CONNECTIONS = 64;
const TURNS = 20;

const open: net.Server[] = [];
const extras: ExtraListeners[] = [];
const clients: net.Socket[] = [];
afterEach(async () => {
  for (const socket of clients.splice(0)) socket.destroy();
  await Promise.all([
    ...open.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
    ...extras.splice(0).map((extra) => extra.close()),
  ]);
});

function serverWith(count: number, accepted: net.Socket[] = []): net.Server {
  const onConnection = (socket: net.Socket) => {
    accepted.push(socket);
    clients.push(socket);
  };
  const server = net.createServer(onConnection);
  extras.push(
    spreadOverListeners(server, {
      count,
      onConnection,
      noDelay: true,
      onListenerError: (error) => {
        throw error;
      },
    }),
  );
  open.push(server);
  return server;
}

async function listening(server: net.Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.once("listening", () => resolve());
    server.listen({ port, host: "127.0.0.1" });
  });
  return (server.address() as net.AddressInfo).port;
}

/** Opens CONNECTIONS at once, keeps the loop busy for TURNS turns, and says how many were accepted meanwhile. */
async function acceptedWithinTurns(count: number): Promise<number> {
  const accepted: net.Socket[] = [];
  const server = serverWith(count, accepted);
  const port = await listening(server);
  // Let the extra sockets bind before the connections arrive.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const connected = Array.from({ length: CONNECTIONS }, () => {
    const socket = net.connect(port, "127.0.0.1");
    clients.push(socket);
    return new Promise((resolve) => socket.once("connect", resolve));
  });
  await Promise.all(connected); // the kernel completed every handshake; the sockets wait in accept queues
  for (let turn = 0; turn < TURNS; turn++) {
    await new Promise((resolve) => setImmediate(resolve));
    const until = performance.now() + 2; // a busy turn
    while (performance.now() < until);
  }
  return accepted.length;
}

describe("several listening sockets on one port", () => {
  it("a single socket accepts about one new connection per turn of the loop", async () => {
    expect(await acceptedWithinTurns(1)).toBeLessThan(CONNECTIONS);
  });

  it("sixteen sockets accept a burst of 64 connections within 20 turns", async () => {
    expect(await acceptedWithinTurns(16)).toBe(CONNECTIONS);
  });

  it("a port already in use fails with EADDRINUSE, whether the other side shares it or not", async () => {
    const port = await listening(serverWith(4));
    await expect(listening(serverWith(4), port)).rejects.toMatchObject({ code: "EADDRINUSE" });
    await expect(listening(net.createServer(), port)).rejects.toMatchObject({ code: "EADDRINUSE" });
  });

  it("the one-port server's close releases every socket: the port can be taken again", async () => {
    const server = onePortServer(() => {});
    const port = await listening(server);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => server.close(resolve));
    const again = net.createServer();
    open.push(again);
    await expect(listening(again, port)).resolves.toBe(port);
  });

  it("the one-port server's close ends the keep-alive connections of every socket once their responses are sent", async () => {
    // Answers come one after another; whichever socket accepted a connection, it is closed after its answer.
    let arrived = 0;
    const server = onePortServer((_req, res) => {
      setTimeout(() => res.end("ok"), 40 * ++arrived);
    });
    const port = await listening(server);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const answers = Array.from(
      { length: 16 },
      () =>
        new Promise<string>((resolve, reject) => {
          http
            .get({ host: "127.0.0.1", port, agent, path: "/" }, (res) => {
              res.resume();
              res.on("end", () => resolve(String(res.statusCode)));
            })
            .on("error", reject);
        }),
    );
    while (arrived < 16) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = new Promise((resolve) => server.close(() => resolve("closed")));
    expect(await Promise.all(answers)).toEqual(Array(16).fill("200"));
    // Idle keep-alive connections would otherwise stay open for the 60 s keep-alive timeout.
    const hung = new Promise((resolve) => setTimeout(() => resolve("still open"), 3000).unref());
    expect(await Promise.race([closed, hung])).toBe("closed");
    const openConnections = () => Object.values(agent.freeSockets).flat().length;
    while (openConnections() > 0 && (await Promise.race([hung, "waiting"])) === "waiting") {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(openConnections()).toBe(0);
    agent.destroy();
  });
});

function onePortServer(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): net.Server {
  return createOnePortServer(handler, {
    firstByteTimeoutMs: 10_000,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 10_000,
    keepAliveTimeoutMs: 60_000,
    maxHeaderSize: 16 * 1024,
    shutdownGraceMs: 30_000,
    listenSockets: 16,
    onListenerError: (error) => {
      throw error;
    },
  });
}
