import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { spreadOverListeners } from "../../src/http/port-listeners.ts";

// A client pool that grows in a burst opens many connections at once. Node
// accepts one connection per listening socket per turn of the event loop, so
// a busy loop takes one turn per connection; the service listens on several
// sockets sharing its port. These tests count turns of the loop, not time.

const CONNECTIONS = 64;
const TURNS = 20;

const open: net.Server[] = [];
const clients: net.Socket[] = [];
afterEach(async () => {
  for (const socket of clients.splice(0)) socket.destroy();
  await Promise.all(open.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function serverWith(count: number, accepted: net.Socket[] = []): net.Server {
  const onConnection = (socket: net.Socket) => {
    accepted.push(socket);
    clients.push(socket);
  };
  const server = net.createServer(onConnection);
  spreadOverListeners(server, { count, onConnection, noDelay: true });
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

  it("close releases every socket: the port can be taken again", async () => {
    const server = serverWith(8);
    const port = await listening(server);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => server.close(resolve));
    const again = net.createServer();
    open.push(again);
    await expect(listening(again, port)).resolves.toBe(port);
  });
});
